// String order by UTF-16 code units, as Go's sort.Strings orders: the same in every locale, and it
// leaves ICU's collation data untouched, which localeCompare pulls into memory on first use (about
// 3 MiB of a process's resident pages; issue 20).
export const compareCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
