import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { flag, FlagError, formatDuration, HelpRequested, parseDuration, parseFlags, usage } from './flags.ts';

const test = suite('flags');

const specs = {
  name: flag.string('x', 'a name'),
  count: flag.int(3, 'a count', { min: 1 }),
  rate: flag.float(20, 'a rate'),
  on: flag.bool(false, 'a switch'),
  wait: flag.duration(15_000, 'a wait'),
  level: flag.oneOf(['debug', 'info'] as const, 'info', 'a level'),
  maybe: flag.optionalString('optional'),
};

test('defaults apply when a flag is absent', () => {
  assert.equal(parseFlags(specs, []), { name: 'x', count: 3, rate: 20, on: false, wait: 15_000, level: 'info', maybe: undefined });
});

test('--flag value, --flag=value, -flag, bare booleans and --bool=false all parse', () => {
  const v = parseFlags(specs, ['--name', 'n', '--count=7', '-rate', '0.5', '--on', '--wait=1m30s', '--level', 'debug', '--maybe=m']);
  assert.equal(v, { name: 'n', count: 7, rate: 0.5, on: true, wait: 90_000, level: 'debug', maybe: 'm' });
  assert.is(parseFlags(specs, ['--on=false']).on, false);
  assert.is(parseFlags(specs, ['--name=a=b']).name, 'a=b');
});

test('errors name the flag and say what was expected', () => {
  const cases: [string[], string, RegExp][] = [
    [['--count', 'x'], '--count', /integer/],
    [['--count=0'], '--count', /at least 1/],
    [['--wait', '15'], '--wait', /duration/],
    [['--on=maybe'], '--on', /true or false/],
    [['--level=trace'], '--level', /one of debug, info/],
    [['--name'], '--name', /needs a value/],
    [['--nmae', 'x'], '--nmae', /unknown flag/],
    [['--Count', '1'], '--Count', /did you mean --count/],
  ];
  for (const [argv, name, message] of cases) {
    try {
      parseFlags(specs, argv);
      assert.unreachable(argv.join(' '));
    } catch (error) {
      assert.instance(error, FlagError);
      assert.is((error as FlagError).flag, name);
      assert.match((error as Error).message, message);
    }
  }
  assert.throws(() => parseFlags(specs, ['stray']), (e: unknown) => e instanceof FlagError && /unexpected argument "stray"/.test(e.message));
  assert.throws(() => parseFlags(specs, ['--help']), (e: unknown) => e instanceof HelpRequested);
  assert.throws(() => parseFlags(specs, ['--constructor', 'x']), /unknown flag/);
  assert.throws(() => parseFlags(specs, ['--__proto__', 'x']), (e: unknown) => e instanceof FlagError);
});

test('Go durations', () => {
  assert.is(parseDuration('300ms'), 300);
  assert.is(parseDuration('1.5s'), 1500);
  assert.is(parseDuration('1h2m3s'), 3_723_000);
  assert.is(parseDuration('0'), 0);
  assert.is(parseDuration('500us'), 0.5);
  for (const bad of ['', '15', 's', '1s2', '-1s', '1 s']) assert.throws(() => parseDuration(bad), /duration/);
  assert.is(formatDuration(15_000), '15s');
  assert.is(formatDuration(90_000), '1m30s');
  assert.is(formatDuration(300), '300ms');
  assert.is(formatDuration(0), '0s');
});

test('usage lists every flag with its default', () => {
  const text = usage(specs);
  assert.match(text, /--wait value\s+a wait \(default 15s\)/);
  assert.match(text, /--on\s+a switch \(default false\)/);
  assert.match(text, /--maybe value\s+optional$/m);
});

test.run();
