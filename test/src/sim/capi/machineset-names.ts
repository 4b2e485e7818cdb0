// Generated object names, as apiserver's SimpleNameGenerator makes them: `<base>-<5 random chars>`,
// the base cut so the whole stays within 63 characters. The random source is injectable so tests and
// deterministic runs can fix it.

const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const RANDOM_LENGTH = 5;
const MAX_NAME_LENGTH = 63;
const MAX_BASE_LENGTH = MAX_NAME_LENGTH - RANDOM_LENGTH;

/** Returns a number in [0, 1), like Math.random. */
export type RandomSource = () => number;

export function randomSuffix(random: RandomSource = Math.random): string {
  let out = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) out += ALPHABET[Math.floor(random() * ALPHABET.length) % ALPHABET.length];
  return out;
}

/** `base` (e.g. `ms-1-`) cut to fit, plus a random suffix. */
export function generateName(base: string, random: RandomSource = Math.random): string {
  return base.slice(0, MAX_BASE_LENGTH) + randomSuffix(random);
}
