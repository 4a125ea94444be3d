// Runs the conformance suite's client scenarios one after another in one Node, as
// `conformance client --command CMD --scenario S --timeout MS` runs each alone:
// scripts/conformance.sh uses it so that the suite's modules (its MCP SDK, zod, ajv,
// express, undici) load once rather than once a scenario, which was most of a
// scenario's processor time. The suite's own `client --suite` shares them too, but runs
// its whole list at once, and each client under test has a timeout that dozens at once
// on a busy machine would miss; here one scenario runs at a time, with nothing else of
// the suite's beside it.
//
// usage: node conformance-clients.mjs SUITE_JS OUT_DIR COMMAND TIMEOUT_MS SCENARIO...
//
// SUITE_JS is the suite's command (its dist/index.js). For each scenario it writes
// OUT_DIR/NAME.out, what the suite printed (stdout and stderr, as `2>&1` would), and
// OUT_DIR/NAME.rc, its exit status, NAME being the scenario with "/" as "_". The suite
// parses its command line when its module is evaluated and ends with process.exit, so
// each scenario evaluates the module anew (another URL: the same file with a query) with
// its own command line, and its process.exit ends that scenario instead of the process.
import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [suiteJS, outDir, command, timeout, ...scenarios] = process.argv.slice(2);
if (!suiteJS || !outDir || !command || !timeout) {
  console.error('usage: node conformance-clients.mjs SUITE_JS OUT_DIR COMMAND TIMEOUT_MS SCENARIO...');
  process.exit(2);
}

// Thrown by process.exit while a scenario runs, to stop what follows it in the suite.
class ScenarioExit extends Error {}

// What the suite writes goes to the running scenario's .out; once it has exited, nowhere
// (the suite's error handler reports the ScenarioExit it catches).
const current = { fd: -1, exited: false, end: null };

// A scenario that fails as a process would (an uncaught error) ends with status 1, its
// error in its .out.
const fail = (e) => {
  if (e instanceof ScenarioExit) {
    return;
  }
  if (current.fd < 0 || current.exited) {
    throw e;
  }
  writeSync(current.fd, `conformance-clients: ${e?.stack ?? e}\n`);
  current.end(1);
};
process.on('unhandledRejection', fail);
process.on('uncaughtException', fail);
for (const stream of [process.stdout, process.stderr]) {
  const write = stream.write.bind(stream);
  stream.write = (chunk, encoding, done) => {
    if (current.fd < 0) {
      return write(chunk, encoding, done);
    }
    if (!current.exited) {
      writeSync(current.fd, typeof chunk === 'string' ? chunk : Buffer.from(chunk));
    }
    (typeof encoding === 'function' ? encoding : done)?.();
    return true;
  };
}

const exit = process.exit.bind(process);
const node = process.argv[0];
const suiteURL = pathToFileURL(suiteJS).href;
for (const [i, scenario] of scenarios.entries()) {
  const name = scenario.replaceAll('/', '_');
  current.fd = openSync(`${outDir}/${name}.out`, 'w');
  current.exited = false;
  const code = await new Promise((resolve) => {
    current.end = (status) => {
      if (!current.exited) {
        current.exited = true;
        resolve(status);
      }
    };
    process.exit = (status) => {
      current.end(status ?? process.exitCode ?? 0);
      throw new ScenarioExit('the scenario ended');
    };
    process.argv = [node, suiteJS, 'client', '--command', command, '--scenario', scenario, '--timeout', timeout];
    import(`${suiteURL}?scenario=${i}`).catch(fail);
  });
  closeSync(current.fd);
  current.fd = -1;
  process.exitCode = undefined;
  writeFileSync(`${outDir}/${name}.rc`, `${code}\n`);
}
exit(0);
