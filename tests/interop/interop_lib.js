// interop_lib.js: what hdr_interop.js and co_hdrout_interop.js share: the
// expected.jsonl reader, the check counter, the Interval_Max column and the
// checks of one interval line against pr_hist's own figures.
"use strict";
const fs = require("fs");
const path = require("path");

let failures = 0;
let checks = 0;

function check(ok, what) {
  checks++;
  if (!ok) {
    failures++;
    console.error("FAIL: " + what);
  }
}

// DIR/expected.jsonl, one object a line.
function readExpected(dir) {
  return fs
    .readFileSync(path.join(dir, "expected.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
}

// The Interval_Max column of every interval line of a log's text.
function maxFields(text) {
  return text
    .split("\n")
    .filter((l) => l && !l.startsWith("#") && !l.startsWith('"'))
    .map((l) => l.split(",").slice(-2)[0]);
}

// Interval line h (as hdr-histogram-js read it, Interval_Max column
// maxField) against e: tag, timestamps (through ts, the identity or a
// rounding), Interval_Max and total count.
function checkLine(where, h, e, maxField, ts) {
  check(h.tag === (e.tag === "" ? "NO TAG" : e.tag), `${where}: tag ${h.tag}`);
  check(ts(h.startTimeStampMsec) === e.start_ms, `${where}: start ${h.startTimeStampMsec} != ${e.start_ms}`);
  check(ts(h.endTimeStampMsec) === e.start_ms + e.length_ms, `${where}: end ${h.endTimeStampMsec}`);
  check(maxField === e.max_field, `${where}: Interval_Max ${maxField} != ${e.max_field}`);
  check(h.totalCount === e.count, `${where}: count ${h.totalCount} != ${e.count}`);
}

// Its values: min and max as bucket equivalents, and every percentile once
// clamped to our exact max (the one documented difference, pr_hist.h).
function checkValues(where, h, e) {
  check(h.minNonZeroValue === e.min_equiv, `${where}: min ${h.minNonZeroValue} != ${e.min_equiv}`);
  check(h.maxValue === e.max_equiv, `${where}: max ${h.maxValue} != ${e.max_equiv}`);
  for (const [p, ours] of Object.entries(e.p)) {
    const theirs = h.getValueAtPercentile(Number(p));
    check(Math.min(theirs, e.max) === ours, `${where}: p${p} js ${theirs} vs ours ${ours}`);
  }
}

// Prints the tally and exits, 1 when a check failed.
function finish() {
  console.log(`hdr-histogram-js ${require("hdr-histogram-js/package.json").version}: ${checks} checks, ${failures} failed`);
  process.exit(failures ? 1 : 0);
}

module.exports = { check, readExpected, maxFields, checkLine, checkValues, finish };
