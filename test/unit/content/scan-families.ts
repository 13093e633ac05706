// Families of Markdown bodies built to make a limit check do as much work as possible, each at any
// size: lists of every marker, quotes, emphasis, brackets, tables, HTML, mixed and nested, on one
// line and across lines. The linear-work test (limits-linear.test.ts) and the limits benchmark
// (bench/limits.ts) run the scan over each at doubling sizes, beside plain text of the same size.

/** `unit` repeated to about `chars` characters, then `tail`. */
const rep = (unit: string, chars: number, tail = '') => unit.repeat(Math.max(1, Math.floor((chars - tail.length) / unit.length))) + tail;

export const PLAIN_FAMILY = 'plain text';

/** Name → body of about `chars` characters. */
export const SCAN_FAMILIES: Record<string, (chars: number) => string> = {
  [PLAIN_FAMILY]: (n) => rep('lorem ipsum dolor sit amet ', n),
  '`- ` markers then x': (n) => rep('- ', n, 'x'),
  '`* ` markers then x': (n) => rep('* ', n, 'x'),
  '`+ ` markers then x': (n) => rep('+ ', n, 'x'),
  '`1. ` markers then x': (n) => rep('1. ', n, 'x'),
  '`> ` quotes then x': (n) => rep('> ', n, 'x'),
  '`> - ` mixed then x': (n) => rep('> - ', n, 'x'),
  '`-` dashes then x': (n) => rep('-', n, 'x'),
  '`- - -` then x on one line': (n) => rep('- - -', n, ' x'),
  'list items, one a line': (n) => rep('- a\n', n),
  'nested items, two levels': (n) => rep('- a\n  - b\n    - c\n', n),
  'lazy lines in a quote': (n) => rep('> a\nb\n', n),
  'emphasis `*a `': (n) => rep('*a ', n),
  'an emphasis run `*`': (n) => rep('*', n, 'x'),
  'underscores `_a_ `': (n) => rep('_a_ ', n),
  'link brackets `[a](b) `': (n) => rep('[a](b) ', n),
  'open brackets `[`': (n) => rep('[', n),
  'close brackets `]`': (n) => rep(']', n),
  backslashes: (n) => rep('\\', n),
  backticks: (n) => rep('`', n),
  'table, many cells': (n) => `a|b\n-|-\n${rep('|', n)}`,
  'table delimiter, trailing spaces': (n) => `a|b\n|-|-|${rep(' ', n, 'x')}`,
  'table rows': (n) => `a|b\n-|-\n${rep('|c|d|\n', n)}`,
  'HTML attributes': (n) => `<div${rep(' a=b', n)}`,
  'HTML tag, spaces then x': (n) => `<a${rep(' ', n, 'x')}`,
  'HTML comment, dashes': (n) => `<!--${rep('-', n)}`,
  'fences `` ``` ``': (n) => rep('```\n', n),
  'fence then backticks': (n) => `\`\`\`${rep('`', n, 'x')}`,
  'hint tags': (n) => rep('{% hint style="info" %}\n', n),
  'headings `#`': (n) => rep('#', n, ' x'),
  'tabs and spaces then -': (n) => rep('\t ', n, '- x'),
};

/** Doubling sizes, in characters. */
export const SCAN_SIZES = [12_500, 25_000, 50_000, 100_000];
