// parquet-read.mjs reads hindsight scan's Parquet tables with DuckDB, an
// implementation independent of the Go writer, and prints what it saw as
// one JSON object on stdout: for each table its schema (DESCRIBE) and rows,
// plus a few aggregate queries. scan's tests run it and compare.
//
//	node scripts/parquet-read.mjs HISTORIES_GLOB ANOMALIES_GLOB
//
// The globs may match several shards' files (histories-*-of-4.parquet).
// Needs the npm package @duckdb/node-api (npm ci).
import { DuckDBInstance } from '@duckdb/node-api';

const [historiesGlob, anomaliesGlob] = process.argv.slice(2);
if (!historiesGlob || !anomaliesGlob) {
  console.error('usage: node scripts/parquet-read.mjs HISTORIES_GLOB ANOMALIES_GLOB');
  process.exit(2);
}

// quote makes a SQL string literal.
const quote = (s) => "'" + s.replaceAll("'", "''") + "'";

const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();

async function rows(sql) {
  const reader = await conn.runAndReadAll(sql);
  return reader.getRowObjectsJson();
}

async function table(glob) {
  const src = `read_parquet(${quote(glob)})`;
  const schema = (await rows(`DESCRIBE SELECT * FROM ${src}`)).map((r) => ({
    name: r.column_name,
    type: r.column_type,
    nullable: r.null === 'YES',
  }));
  // No ORDER BY: DuckDB keeps the files' row order (preserve_insertion_order),
  // which is what the test checks.
  return { schema, rows: await rows(`SELECT * FROM ${src}`) };
}

const out = {
  duckdb_version: (await rows('SELECT version() AS v'))[0].v,
  histories: await table(historiesGlob),
  anomalies: await table(anomaliesGlob),
  verdicts: await rows(
    `SELECT verdict, count(*) AS n FROM read_parquet(${quote(historiesGlob)}) GROUP BY verdict ORDER BY verdict`),
  // anomaly rows per history, joined back to the histories table
  anomaly_counts: await rows(
    `SELECT h.path, count(a.type) AS n
       FROM read_parquet(${quote(historiesGlob)}) h
       LEFT JOIN read_parquet(${quote(anomaliesGlob)}) a USING (path)
      GROUP BY h.path ORDER BY h.path`),
};
process.stdout.write(JSON.stringify(out) + '\n');
