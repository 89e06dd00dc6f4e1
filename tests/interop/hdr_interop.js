#!/usr/bin/env node
// hdr_interop.js DIR: decode DIR/rel.hlog and DIR/abs.hlog (written by
// hdr_interop_gen) with hdr-histogram-js's HistogramLogReader and compare
// every interval with DIR/expected.jsonl, pr_hist's own figures.
//
// Equal means: total count exactly; min = lowest equivalent of our exact
// min and max = highest equivalent of our exact max (HdrHistogram only
// knows buckets); every percentile equal to ours once clamped to our exact
// max (pr_hist.h documents that one difference); stddev to 1e-9 relative
// (both use bucket midpoints); tag, timestamps and the Interval_Max column.
"use strict";
const fs = require("fs");
const path = require("path");
const hdr = require("hdr-histogram-js");

const dir = process.argv[2];
const expected = fs
  .readFileSync(path.join(dir, "expected.jsonl"), "utf8")
  .trim()
  .split("\n")
  .map((l) => JSON.parse(l));
let failures = 0;
let checks = 0;

function check(ok, what) {
  checks++;
  if (!ok) {
    failures++;
    console.error("FAIL: " + what);
  }
}

function compareLog(name) {
  const text = fs.readFileSync(path.join(dir, name), "utf8");
  const reader = new hdr.HistogramLogReader(text, 64);
  const maxFields = text
    .split("\n")
    .filter((l) => l && !l.startsWith("#") && !l.startsWith('"'))
    .map((l) => l.split(",").slice(-2)[0]);
  check(maxFields.length === expected.length, `${name}: ${maxFields.length} interval lines`);
  for (let i = 0; i < expected.length; i++) {
    const e = expected[i];
    const h = reader.nextIntervalHistogram();
    const where = `${name}[${i}] (${e.tag || "no tag"})`;
    if (!h) {
      check(false, `${where}: reader returned no histogram`);
      continue;
    }
    check(h.tag === (e.tag === "" ? "NO TAG" : e.tag), `${where}: tag ${h.tag}`);
    check(h.startTimeStampMsec === e.start_ms, `${where}: start ${h.startTimeStampMsec} != ${e.start_ms}`);
    check(h.endTimeStampMsec === e.start_ms + e.length_ms, `${where}: end ${h.endTimeStampMsec}`);
    check(maxFields[i] === e.max_field, `${where}: Interval_Max ${maxFields[i]} != ${e.max_field}`);
    check(h.totalCount === e.count, `${where}: count ${h.totalCount} != ${e.count}`);
    if (e.count === 0) {
      check(h.maxValue === 0, `${where}: empty but max ${h.maxValue}`);
      continue;
    }
    check(h.minNonZeroValue === e.min_equiv, `${where}: min ${h.minNonZeroValue} != ${e.min_equiv}`);
    check(h.maxValue === e.max_equiv, `${where}: max ${h.maxValue} != ${e.max_equiv}`);
    for (const [p, ours] of Object.entries(e.p)) {
      const theirs = h.getValueAtPercentile(Number(p));
      check(Math.min(theirs, e.max) === ours, `${where}: p${p} js ${theirs} vs ours ${ours}`);
    }
    const sd = h.stdDeviation;
    check(Math.abs(sd - e.stddev) <= 1e-9 * Math.max(1, e.stddev), `${where}: stddev ${sd} vs ${e.stddev}`);
    if (i === 0)
      console.log(`${where}: n=${h.totalCount} p50=${h.getValueAtPercentile(50)} p99.9=${h.getValueAtPercentile(99.9)} max=${h.maxValue}`);
  }
  check(reader.nextIntervalHistogram() === null, `${name}: extra intervals`);
}

compareLog("rel.hlog");
compareLog("abs.hlog");
console.log(`hdr-histogram-js ${require("hdr-histogram-js/package.json").version}: ${checks} checks, ${failures} failed`);
process.exit(failures ? 1 : 0);
