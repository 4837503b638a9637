// duckdb-query.mjs runs SQL statements with DuckDB (in memory) in the
// current directory and prints, as one JSON array on stdout, the rows of
// each statement (an array of row objects; BIGINTs as strings). scan's
// shard-merge test runs the merge query of deploy/kubernetes/README.md
// with it, then reads the tables back.
//
//	node scripts/duckdb-query.mjs 'SQL1' 'SQL2' ...
//
// Needs the npm package @duckdb/node-api (npm ci).
import { DuckDBInstance } from '@duckdb/node-api';

const statements = process.argv.slice(2);
if (statements.length === 0) {
  console.error("usage: node scripts/duckdb-query.mjs 'SQL' ...");
  process.exit(2);
}
const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
const out = [];
for (const sql of statements) {
  const reader = await conn.runAndReadAll(sql);
  out.push(reader.getRowObjectsJson());
}
process.stdout.write(JSON.stringify(out) + '\n');
