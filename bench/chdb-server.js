// A stand-in for a ClickHouse server, for benchmarks that run the service as separate processes
// (ROLE=api and ROLE=worker need CLICKHOUSE_URL: the embedded engine serves one process). The only
// ClickHouse server this machine's packages offer (Debian's 18.16) cannot run the service's schema,
// so this process holds the embedded engine (chDB, the one the service embeds) in `<folder>` and
// answers the part of ClickHouse's HTTP interface that @clickhouse/client uses: GET /ping; POST /
// with the statement in the body (a query or a command), or with `query` in the URL (an INSERT,
// its rows in the body); `param_<name>` query parameters; settings as URL parameters (an INSERT's
// go into its SETTINGS clause, a statement's into a SETTINGS clause before its FORMAT); errors as
// status 500 with ClickHouse's message. Prints its port on stdout.
//
//   node bench/chdb-server.js <folder>
const http = require('node:http');
const { Session } = require('chdb');

const folder = process.argv[2];
if (!folder) throw new Error('usage: node bench/chdb-server.js <folder>');
const session = new Session(folder);

// URL parameters that are the HTTP interface's own, not settings of the statement.
const NOT_SETTINGS = new Set(['query', 'query_id', 'database', 'session_id', 'role', 'default_format', 'wait_end_of_query', 'enable_http_compression']);

/** A query parameter's text as the client sent it (TSV-escaped) back to the value chDB escapes again. */
function unescape(text) {
  if (text === '\\N') return null;
  return text.replace(/\\(.)/g, (_, c) => ({ t: '\t', n: '\n', r: '\r', 0: '\0', b: '\b', f: '\f' })[c] ?? c);
}

function settingsClause(search) {
  const pairs = [];
  for (const [name, value] of search) {
    if (NOT_SETTINGS.has(name) || name.startsWith('param_')) continue;
    if (!/^\w+$/.test(name)) throw new Error(`Code: 115. DB::Exception: Unknown setting ${name}`);
    pairs.push(/^-?\d+(\.\d+)?$/.test(value) ? `${name} = ${value}` : `${name} = '${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`);
  }
  return pairs.length > 0 ? ` SETTINGS ${pairs.join(', ')}` : '';
}

/** The statement to run: an INSERT's from the URL (SETTINGS before its FORMAT) and its rows, or the body. */
function statementOf(search, body) {
  const settings = settingsClause(search);
  const insert = search.get('query');
  if (insert) {
    const at = insert.search(/\sFORMAT\s+\w+\s*$/i);
    const head = at < 0 ? insert : `${insert.slice(0, at)}${settings}${insert.slice(at)}`;
    return `${at < 0 ? head + settings : head}\n${body}`;
  }
  if (!settings) return body;
  const format = /\n?FORMAT\s+\w+\s*$/i.exec(body);
  return format ? `${body.slice(0, format.index)}${settings}${body.slice(format.index)}` : `${body}${settings}`;
}

// ClickHouse takes URLs up to 1 MiB (http_max_uri_size): query parameters such as a batch's 1,000 click ids.
const server = http.createServer({ maxHeaderSize: 1 << 20 }, (req, res) => {
  const url = new URL(req.url, 'http://stand-in');
  if (url.pathname === '/ping') {
    res.end('Ok.\n');
    return;
  }
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', async () => {
    try {
      const sql = statementOf(url.searchParams, Buffer.concat(chunks).toString('utf8'));
      const params = {};
      for (const [name, value] of url.searchParams) if (name.startsWith('param_')) params[name.slice(6)] = unescape(value);
      const result = Object.keys(params).length > 0 ? await session.queryBindAsync(sql, params, { format: 'TSV' }) : await session.queryAsync(sql, { format: 'TSV' });
      const bytes = Buffer.from(result.bytes());
      res.writeHead(200, { 'Content-Length': bytes.length, 'X-ClickHouse-Query-Id': url.searchParams.get('query_id') ?? '' });
      res.end(bytes);
    } catch (error) {
      const message = String(error?.message ?? error);
      res.writeHead(500, { 'Content-Type': 'text/plain', 'X-ClickHouse-Exception-Code': /Code: (\d+)/.exec(message)?.[1] ?? '1000' });
      res.end(/^Code: \d+/.test(message) ? message : `Code: 1000. DB::Exception: ${message}`);
    }
  });
});
server.keepAliveTimeout = 10_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
