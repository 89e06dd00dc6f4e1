# shellcheck shell=bash
# scenarios.sh: the fleet scenarios of issue 5, run against the deployed
# agents. Each prints its measured timings and writes a summary line.
