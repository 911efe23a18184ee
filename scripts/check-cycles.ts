// Fails when any import cycle exists among the project's TypeScript modules (run with the tests).
import madge from 'madge';

const roots = [
  'api',
  'workflows',
  'activities',
  'worker',
  'engine',
  'store',
  'platform',
  'bin',
  'testkit',
  'web/src',
];
const result = await madge(roots, {
  fileExtensions: ['ts', 'tsx'],
  tsConfig: 'tsconfig.json',
  excludeRegExp: [/node_modules/],
});
const cycles = result.circular();
if (cycles.length) {
  console.error(`import cycles found (${cycles.length}):`);
  for (const c of cycles) console.error('  ' + c.join(' -> '));
  process.exit(1);
}
console.log(`no import cycles among ${Object.keys(result.obj()).length} modules`);
