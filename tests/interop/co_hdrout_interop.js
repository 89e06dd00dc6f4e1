#!/usr/bin/env node
// co_hdrout_interop.js DIR: decode DIR/run.hlog (a --hdr-log file written by
// co_hdrout, through co_hdrout_gen) with hdr-histogram-js's
// HistogramLogReader and compare every interval line with
// DIR/expected.jsonl (pr_hist's own figures, same order).
//
// Checked per line: tag ("NO TAG" for the merged line), start and end
// timestamps (BaseTime + StartTimestamp), the Interval_Max column, total
// count, min/max as bucket equivalents, and the percentiles (clamped to our
// exact max, the one documented difference, pr_hist.h). Per interval: the
// untagged histogram equals the sum, computed by hdr-histogram-js, of that
// interval's tagged ones. listTags() sees the merged line and every agent.
"use strict";
const fs = require("fs");
const path = require("path");
const hdr = require("hdr-histogram-js");
const { check, readExpected, maxFields, checkLine, checkValues, finish } = require("./interop_lib.js");

const dir = process.argv[2];
const text = fs.readFileSync(path.join(dir, "run.hlog"), "utf8");
const expected = readExpected(dir);

function percentilesEqual(a, b) {
  for (const p of [50, 90, 95, 99, 99.9, 100])
    if (a.getValueAtPercentile(p) !== b.getValueAtPercentile(p)) return false;
  return true;
}

const maxes = maxFields(text);
check(maxes.length === expected.length, `${maxes.length} interval lines, want ${expected.length}`);

const reader = new hdr.HistogramLogReader(text, 64);
let merged = null; // this interval's untagged histogram
let sum = null; // hdr-histogram-js's sum of its tagged ones
function checkMerge() {
  if (merged === null) return;
  check(sum.totalCount === merged.totalCount, `merge at ${merged.startTimeStampMsec}: count ${sum.totalCount} != ${merged.totalCount}`);
  check(percentilesEqual(sum, merged), `merge at ${merged.startTimeStampMsec}: percentiles differ`);
}

for (let i = 0; i < expected.length; i++) {
  const e = expected[i];
  const h = reader.nextIntervalHistogram();
  const where = `line ${i} (${e.tag || "merged"})`;
  if (!h) {
    check(false, `${where}: reader returned no histogram`);
    continue;
  }
  checkLine(where, h, e, maxes[i], Math.round);
  checkValues(where, h, e);
  if (e.tag === "") {
    checkMerge();
    merged = h;
    sum = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 3600000000, numberOfSignificantValueDigits: 3 });
  } else {
    sum.add(h);
  }
  if (i < 2)
    console.log(`${where}: n=${h.totalCount} p50=${h.getValueAtPercentile(50)}us p99=${h.getValueAtPercentile(99)}us max=${h.maxValue}us`);
}
checkMerge();
check(reader.nextIntervalHistogram() === null, "extra intervals");

const tags = hdr.listTags(text);
const wantTags = ["NO TAG", ...new Set(expected.filter((e) => e.tag !== "").map((e) => e.tag))];
check(JSON.stringify(tags) === JSON.stringify(wantTags), `listTags ${JSON.stringify(tags)} != ${JSON.stringify(wantTags)}`);

finish();
