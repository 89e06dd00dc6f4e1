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
const { check, readExpected, maxFields, checkLine, checkValues, finish } = require("./interop_lib.js");

const dir = process.argv[2];
const expected = readExpected(dir);

function compareLog(name) {
  const text = fs.readFileSync(path.join(dir, name), "utf8");
  const reader = new hdr.HistogramLogReader(text, 64);
  const maxes = maxFields(text);
  check(maxes.length === expected.length, `${name}: ${maxes.length} interval lines`);
  for (let i = 0; i < expected.length; i++) {
    const e = expected[i];
    const h = reader.nextIntervalHistogram();
    const where = `${name}[${i}] (${e.tag || "no tag"})`;
    if (!h) {
      check(false, `${where}: reader returned no histogram`);
      continue;
    }
    checkLine(where, h, e, maxes[i], (t) => t);
    if (e.count === 0) {
      check(h.maxValue === 0, `${where}: empty but max ${h.maxValue}`);
      continue;
    }
    checkValues(where, h, e);
    const sd = h.stdDeviation;
    check(Math.abs(sd - e.stddev) <= 1e-9 * Math.max(1, e.stddev), `${where}: stddev ${sd} vs ${e.stddev}`);
    if (i === 0)
      console.log(`${where}: n=${h.totalCount} p50=${h.getValueAtPercentile(50)} p99.9=${h.getValueAtPercentile(99.9)} max=${h.maxValue}`);
  }
  check(reader.nextIntervalHistogram() === null, `${name}: extra intervals`);
}

compareLog("rel.hlog");
compareLog("abs.hlog");
finish();
