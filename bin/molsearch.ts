#!/usr/bin/env node
// The one command-line entry: `molsearch <command>`. Each command lives in bin/commands/.

const USAGE = `usage: molsearch <command> [options]

commands:
  start                 start everything on embedded defaults (Temporal dev server, PGlite,
                        local object store, bundled catalogs), or against TEMPORAL_ADDRESS,
                        DATABASE_URL and S3_* when they are set
  api                   start only the HTTP API (production topology)
  worker                start only a Temporal worker (production topology)
  keys create --tier T --user U [--expires YYYY-MM-DD]
  keys list [--user U] | keys revoke <key-id|prefix>
  catalog build --input FILE --out DIR --id ID [...]   build a catalog (see docs/catalog-format.md)
  catalog publish --id ID [--catalog-dir DIR]   upload a catalog to the object store (S3_BUCKET)
  catalog ensure        build the bundled sample catalogs that are missing
  fleet status [--json]                scan workers, their queues, capacity and shards held
  fleet placement --catalog ID [--json]   each shard's holders and rendezvous owner
  space build --input FILE --out DIR --id ID   build a synthon space (see docs/synthon-spaces.md)
`;

const [command, ...rest] = process.argv.slice(2);

async function main(): Promise<number> {
  switch (command) {
    case 'start':
      return (await import('./commands/start.ts')).runStart(rest);
    case 'api':
      return (await import('./commands/start.ts')).runStart(rest, { worker: false });
    case 'worker':
      return (await import('./commands/worker.ts')).runWorkerCommand(rest);
    case 'keys':
      return (await import('./commands/keys.ts')).runKeys(rest);
    case 'catalog':
      return (await import('./commands/catalog.ts')).runCatalog(rest);
    case 'fleet':
      return (await import('./commands/fleet.ts')).runFleet(rest);
    case 'space':
      return (await import('./commands/space.ts')).runSpace(rest);
    case undefined:
    case '-h':
    case '--help':
    case 'help':
      process.stdout.write(USAGE);
      return command ? 0 : 2;
    default:
      process.stderr.write(`unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
      return 2;
  }
}

main().then(
  (code) => {
    if (code !== undefined && code !== -1) process.exitCode = code;
  },
  (err: unknown) => {
    const e = err as { name?: string; message?: string; code?: string };
    process.stderr.write(`error: ${e?.message ?? String(err)}\n`);
    if (process.env.DEBUG) console.error(err);
    process.exitCode = 1;
  },
);
