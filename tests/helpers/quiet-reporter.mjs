// node:test reporter for `npm test`: silent while tests pass; each failure printed in full as it
// happens (name, file and line, the error), with the output its file wrote; then node's summary
// lines (`# tests N`, `# pass N`, `# fail N`, ...), which CI reads to tell the tests ran. The spec
// reporter printed about 6,000 lines per run, in which a failure was hard to find.
//
//   node --test --test-reporter=./tests/helpers/quiet-reporter.mjs ...
//   (`--test-reporter=spec` instead shows every test, as before.)
import { inspect } from 'node:util';

/** Output a test file wrote, kept until it turns out to matter (a failure in that file). */
const output = new Map();
const failedFiles = new Set();

function where(data) {
  if (data.file === undefined) return '';
  return ` (${data.file}${data.line === undefined ? '' : `:${data.line}:${data.column}`})`;
}

function failure(data) {
  const error = data.details?.error;
  // A suite whose subtests failed: those failures are printed on their own.
  if (error?.failureType === 'subtestsFailed') return '';
  const cause = error?.cause ?? error;
  const text = inspect(cause, { depth: 6, colors: false, breakLength: 120 });
  return `\nnot ok: ${data.name}${where(data)}\n${text.replace(/^/gm, '  ')}\n`;
}

function flushOutput(file) {
  const text = output.get(file);
  output.delete(file);
  return text === undefined || text === '' ? '' : `\noutput of ${file}:\n${text.replace(/^/gm, '  ')}\n`;
}

export default async function* quietReporter(source) {
  const summary = [];
  let tests = 0;
  for await (const { type, data } of source) {
    switch (type) {
      case 'test:pass':
        if (data.details?.type !== 'suite') tests++;
        break;
      case 'test:fail': {
        if (data.details?.type !== 'suite') tests++;
        if (data.file !== undefined) failedFiles.add(data.file);
        const text = failure(data);
        if (text !== '') yield text;
        if (data.file !== undefined && data.nesting === 0) yield flushOutput(data.file);
        break;
      }
      case 'test:stdout':
      case 'test:stderr': {
        const key = data.file ?? '';
        output.set(key, (output.get(key) ?? '') + data.message);
        break;
      }
      case 'test:diagnostic':
        // The run's closing counts come at nesting 0 with no file; a file's own notes are kept.
        if (data.nesting === 0 && data.file === undefined) summary.push(`# ${data.message}\n`);
        break;
      default:
        break;
    }
  }
  for (const file of failedFiles) yield flushOutput(file);
  // Output of files with no failure is dropped; the summary is node's own closing lines.
  if (summary.length === 0) summary.push(`# tests ${tests}\n`);
  yield summary.join('');
}
