#!/usr/bin/env python3
"""The include graph of stampede's C sources and the layers it must respect
(issue 31, "Layers the build enforces").

Reads every `#include "..."` of the .c and .h files under the folders declared
below (tests/ and build*/ left out), resolves each to a file of the tree and
folds files into modules: a .c and the .h of the same stem in the same folder
are one module (a lone .c or .h is a module too), named by its path without
the extension ("families/sysbench/agent/ag_sb_load", "coordinator/main"); a module's
internal headers X_int.h and X_test.h are part of module X (PART_SUFFIXES).

  include_graph.py --stats [--root DIR]
      the figures: per layer and for the whole tree, modules, edges, cycles
      (strongly connected components of more than one module) with their
      members, the largest cycle, back edges, depth and "up" edges.
  include_graph.py --check BASELINE [--root DIR]
      the lint test (meson test include_layers, suite lint); exits 1 on
        - an include that crosses layers the wrong way (a back edge),
        - a cycle of modules that spans two layers,
        - a cycle inside a layer that is not in BASELINE, or has grown,
        - a BASELINE entry that is no longer a cycle as written (so the
          baseline stays true and only shrinks),
        - a quoted include that resolves to no file, or to more than one,
        - a file under families/X/ (its tests/ too) that includes a *_int.h
          or *_test.h header found nowhere under families/X/ (another
          module's internals: a family includes only published headers),
        - a file under families/X/ that names a co__/ag__/pr__ identifier
          no header under families/X/ declares (FAMILY_NAME_EXCEPTIONS
          aside; an exception no family file needs any more fails too).
  include_graph.py --self-test
      the checks above on small made-up trees in a temporary folder.

Standard library only. <...> includes are ignored (system and library
headers); a generated header X.h made from X.h.in belongs to X.h.in's folder
(proto/base/pr_build.h, generated). Resolution: the including file's own folder first, as the
compiler does for "..."; else the one file of that name (or trailing path)
anywhere in the scanned folders.
"""

import argparse
import os
import re
import sys
import tempfile

# ---------------------------------------------------------------------------
# Declarations: edit these when folders move or layers are tightened.
#
# LAYERS: folder prefix -> layer, for every folder that is scanned; the
# longest matching prefix names the layer of a file; a '*' stands for one
# folder name (each family's part sits in the layer of its program part).
LAYERS = [
    ("proto/base/", "proto-base"),
    ("proto/", "proto"),
    ("families/*/proto/", "proto"),
    ("agent/engine/", "agent-engine"),
    ("families/*/agent/", "agent-family"),
    ("agent/control/", "agent-control"),
    ("agent/", "agent"),  # main.c
    ("coordinator/report/", "co-report"),
    ("coordinator/fleet/", "co-fleet"),
    ("coordinator/core/", "co-core"),
    ("coordinator/cli/", "co-cli"),
    ("coordinator/out/", "co-out"),
    ("coordinator/run/", "co-run"),
    ("coordinator/", "coordinator"),  # main.c
    ("families/*/coordinator/", "co-family"),
]
# MAY_INCLUDE: the layers a layer may include besides itself (not
# transitive: list every one). proto is the bottom (base/ under the rest);
# agent and coordinator sit side by side above it and never include each
# other. In the agent, the families sit on the engine (ag_family.h) and the
# daemon's control on both. In the coordinator, the report tool
# (report/, the families' report parts plug into co_rpt_family.h) and the
# fleet are the bottom; above them core/ (the run's data and the family
# interface), cli/ (the command line), out/ (what a run writes), run/ (a
# run's phases), then main.c and the families on all of them.
PROTO = ["proto", "proto-base"]
MAY_INCLUDE = {
    "proto-base": [],
    "proto": ["proto-base"],
    "agent-engine": PROTO,
    "agent-family": ["agent-engine"] + PROTO,
    "agent-control": ["agent-engine", "agent-family"] + PROTO,
    "agent": ["agent-control", "agent-engine"] + PROTO,
    "co-report": PROTO,
    "co-fleet": PROTO,
    "co-core": ["co-report"] + PROTO,
    "co-cli": ["co-core"] + PROTO,
    "co-out": ["co-cli", "co-core"] + PROTO,
    "co-run": ["co-out", "co-cli", "co-core", "co-fleet", "co-report"] + PROTO,
    "coordinator": ["co-run", "co-out", "co-cli", "co-core", "co-fleet", "co-report"] + PROTO,
    "co-family": ["co-run", "co-out", "co-cli", "co-core", "co-fleet", "co-report"] + PROTO,
}
# Folders never scanned (by name, at any depth), and name prefixes of folders
# never scanned.
SKIP_DIRS = {"tests"}
SKIP_DIR_PREFIXES = ("build", ".")
# A module's internal headers: X_int.h (names shared by the files of module
# X, docs/dev.md section 1) and X_test.h (its test-only internals) belong to
# module X when X.c or X.h sits in the same folder; they are not modules of
# their own (X -> X_int -> X would be a cycle no split can remove).
PART_SUFFIXES = ("_int", "_test")
# Quoted includes that name a library's header rather than a file of the
# tree (none today).
EXTERNAL = set()
# The families (families/X/, each with every sub-folder, tests/ included)
# include only published headers and name only their own internals (issue
# 31): no *_int.h / *_test.h header from outside families/X/, no
# co__/ag__/pr__ identifier that no header under families/X/ declares.
FAMILIES = "families"
PRIVATE_HEADER_SUFFIXES = ("_int.h", "_test.h")
# (identifier prefix, why): internal names families may still use, until
# they are published. This list only shrinks: an entry no family file
# needs fails the check.
FAMILY_NAME_EXCEPTIONS = []
# ---------------------------------------------------------------------------

INCLUDE_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"')
SOURCE_EXTS = (".c", ".h", ".h.in")


def strip_comments(text):
    """text with /* */ and // comments blanked (newlines kept, so line
    numbers hold); string and character literals are left alone."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and i + 1 < n and text[i + 1] == "*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c == "/" and i + 1 < n and text[i + 1] == "/":
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(text[i:j])
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def prefix_matches(prefix, path):
    """path lies under prefix, where a '*' in prefix stands for one folder
    name ("families/*/agent/")."""
    return re.match("^" + re.escape(prefix).replace(r"\*", "[^/]+"), path) is not None


def layer_of(path):
    best = None
    for prefix, layer in LAYERS:
        if prefix_matches(prefix, path) and (best is None or len(prefix) > len(best[0])):
            best = (prefix, layer)
    return best[1] if best else None


def stem_of(path):
    """A file's path without .c/.h/.h.in."""
    for ext in (".h.in", ".c", ".h"):
        if path.endswith(ext):
            return path[: -len(ext)]
    return path


class Graph:
    """The scanned tree: files, includes, modules and module edges."""

    def __init__(self, root):
        self.root = root
        self.files = {}  # repo path -> source path on disk ('x.h' -> 'x.h.in' for generated)
        self.includes = []  # (file, line, name, resolved path or None, problem or None)
        self.edges = {}  # (module, module) -> [(file, line, name)]
        self._scan()
        self._resolve()

    def _scan(self):
        roots = sorted({p.split("/")[0] for p, _ in LAYERS})
        for top in roots:
            base = os.path.join(self.root, top)
            if not os.path.isdir(base):
                continue
            for dirpath, dirnames, filenames in os.walk(base):
                dirnames[:] = sorted(
                    d for d in dirnames
                    if d not in SKIP_DIRS and not d.startswith(SKIP_DIR_PREFIXES))
                for fn in sorted(filenames):
                    if not fn.endswith(SOURCE_EXTS):
                        continue
                    rel = os.path.relpath(os.path.join(dirpath, fn), self.root)
                    rel = rel.replace(os.sep, "/")
                    if layer_of(rel) is None:
                        continue
                    name = rel[: -len(".in")] if rel.endswith(".h.in") else rel
                    self.files[name] = rel
        stems = {stem_of(f) for f in self.files}
        self.module = {}  # repo path -> module
        for f in self.files:
            m = stem_of(f)
            for suffix in PART_SUFFIXES:
                if f.endswith(".h") and m.endswith(suffix) and m[: -len(suffix)] in stems:
                    m = m[: -len(suffix)]
            self.module[f] = m
        self.modules = set(self.module.values())
        self.by_tail = {}
        for f in self.files:
            parts = f.split("/")
            for k in range(1, len(parts) + 1):
                self.by_tail.setdefault("/".join(parts[-k:]), []).append(f)

    def resolve(self, src, name):
        """(path, None) or (None, 'unresolved'|'ambiguous: a, b')."""
        own = os.path.normpath(os.path.join(os.path.dirname(src), name)).replace(os.sep, "/")
        if own in self.files:
            return own, None
        hits = self.by_tail.get(os.path.normpath(name).replace(os.sep, "/"), [])
        if len(hits) == 1:
            return hits[0], None
        if not hits:
            return None, "unresolved"
        return None, "ambiguous: " + ", ".join(sorted(hits))

    def _resolve(self):
        for f in sorted(self.files):
            with open(os.path.join(self.root, self.files[f]), encoding="utf-8",
                      errors="replace") as fh:
                text = strip_comments(fh.read())
            for lineno, line in enumerate(text.split("\n"), 1):
                m = INCLUDE_RE.match(line)
                if not m:
                    continue
                name = m.group(1)
                if name in EXTERNAL:
                    continue
                target, problem = self.resolve(f, name)
                src_file = self.files[f]
                self.includes.append((src_file, lineno, name, target, problem))
                if target is None:
                    continue
                a, b = self.module[f], self.module[target]
                if a != b:
                    self.edges.setdefault((a, b), []).append((src_file, lineno, name))

    def succ(self, nodes=None):
        nodes = self.modules if nodes is None else nodes
        s = {m: [] for m in nodes}
        for a, b in sorted(self.edges):
            if a in s and b in s:
                s[a].append(b)
        return s

    def layer_modules(self, layer):
        return {m for m in self.modules if layer_of(m) == layer}

    def back_edges(self):
        out = []
        for (a, b), where in sorted(self.edges.items()):
            la, lb = layer_of(a), layer_of(b)
            if la != lb and lb not in MAY_INCLUDE.get(la, []):
                out.append((a, b, where))
        return out


def sccs(succ):
    """Strongly connected components (Tarjan, iterative), each a sorted list."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = 0
    for start in sorted(succ):
        if start in index:
            continue
        work = [(start, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on.add(v)
            recurse = False
            nbrs = succ[v]
            while i < len(nbrs):
                w = nbrs[i]
                i += 1
                if w not in index:
                    work.append((v, i))
                    work.append((w, 0))
                    recurse = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if recurse:
                continue
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
    return out


def cycles(succ):
    return sorted((c for c in sccs(succ) if len(c) > 1), key=lambda c: (-len(c), c))


def els_order(nodes, succ):
    """Eades-Lin-Smyth: an order of nodes with few edges going backwards
    (sources first, sinks last); ties by name."""
    nodes = set(nodes)
    out_e = {v: {w for w in succ[v] if w in nodes and w != v} for v in nodes}
    in_e = {v: set() for v in nodes}
    for v in nodes:
        for w in out_e[v]:
            in_e[w].add(v)
    s1, s2 = [], []
    left = set(nodes)

    def drop(v):
        left.discard(v)
        for w in out_e[v]:
            in_e[w].discard(v)
        for w in in_e[v]:
            out_e[w].discard(v)

    while left:
        changed = True
        while changed:
            changed = False
            for v in sorted(left):
                if not out_e[v]:
                    s2.insert(0, v)
                    drop(v)
                    changed = True
            for v in sorted(left):
                if v in left and not in_e[v]:
                    s1.append(v)
                    drop(v)
                    changed = True
        if left:
            v = min(left, key=lambda x: (-(len(out_e[x]) - len(in_e[x])), x))
            s1.append(v)
            drop(v)
    return s1 + s2


def order_figures(nodes, succ):
    """(depth, up edges, order) of the subgraph on nodes.

    The modules are ordered bottom-up: the condensation (each cycle one node)
    in a topological order, a module after everything it includes; inside a
    cycle, by the Eades-Lin-Smyth heuristic. An "up" edge is an include of a
    module placed later (higher) than the includer: there are none outside
    cycles, and their number is how many includes would have to go for the
    order to hold (an upper bound on the fewest that break every cycle).
    Depth: the most include steps on a chain of the condensation (0 = the
    modules include nothing here)."""
    sub = {v: [w for w in succ[v] if w in nodes] for v in nodes}
    comps = sccs(sub)  # Tarjan emits components in reverse topological order
    comp_of = {v: i for i, c in enumerate(comps) for v in c}
    level = {}
    for i, c in enumerate(comps):  # dependencies come first
        deps = {comp_of[w] for v in c for w in sub[v]} - {i}
        level[i] = 1 + max((level[d] for d in deps), default=-1)
    depth = max(level.values(), default=0)
    order = []
    for c in comps:
        order.extend(reversed(els_order(c, sub)) if len(c) > 1 else c)
    pos = {v: k for k, v in enumerate(order)}
    up = sorted((a, b) for a in sub for b in sub[a] if pos[b] > pos[a])
    return depth, up, order


def layer_names():
    seen = []
    for _, layer in LAYERS:
        if layer not in seen:
            seen.append(layer)
    return seen


# --- the families' rule ---------------------------------------------------

INTERNAL_NAME_RE = re.compile(r"\b(?:co|ag|pr)__[A-Za-z0-9_]+")
# A declaration at file scope (clang-format: a line at column 0): the
# identifier right before the first ( [ = ; { or , of the line
# ("int ag__x(", "extern const char *const co__y[];", "struct ag__z {",
# "typedef struct ag__z ag__z;"), or a #define'd name.
DECL_RE = re.compile(r"^(?:#[ \t]*define[ \t]+((?:co|ag|pr)__\w+)"
                     r"|(?!\s)[^(\[=;{},#\n]*?\b((?:co|ag|pr)__\w+)[ \t]*[(\[=;{,])",
                     re.M)
STRING_RE = re.compile(r'"(?:\\.|[^"\\\n])*"')


def family_files(root):
    """{family: [repo paths of its .c/.h files, every sub-folder]}"""
    out = {}
    base = os.path.join(root, FAMILIES)
    if not os.path.isdir(base):
        return out
    for fam in sorted(os.listdir(base)):
        fdir = os.path.join(base, fam)
        if not os.path.isdir(fdir) or fam.startswith(SKIP_DIR_PREFIXES):
            continue
        files = []
        for dirpath, dirnames, filenames in os.walk(fdir):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(SKIP_DIR_PREFIXES))
            for fn in sorted(filenames):
                if fn.endswith(SOURCE_EXTS):
                    rel = os.path.relpath(os.path.join(dirpath, fn), root).replace(os.sep, "/")
                    files.append(rel)
        out[fam] = files
    return out


def family_problems(root, exceptions):
    """(include problems, name problems, stale exceptions): lines to report."""
    incs, names, used = [], [], set()
    for fam, files in family_files(root).items():
        texts = {}
        for f in files:
            with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
                texts[f] = strip_comments(fh.read())
        tails = set()
        for f in files:
            parts = (f[: -len(".in")] if f.endswith(".h.in") else f).split("/")
            tails.update("/".join(parts[-k:]) for k in range(1, len(parts) + 1))
        declared = set()
        for f in files:
            if f.endswith((".h", ".h.in")):
                for m in DECL_RE.finditer(texts[f]):
                    declared.add(m.group(1) or m.group(2))
        for f in files:
            lines = texts[f].split("\n")
            for lineno, line in enumerate(lines, 1):
                m = INCLUDE_RE.match(line)
                if m:
                    name = os.path.normpath(m.group(1)).replace(os.sep, "/")
                    if stem_of(name).endswith(tuple(x[:-2] for x in PRIVATE_HEADER_SUFFIXES)) \
                            and name.endswith(".h") and name not in tails:
                        incs.append('%s:%d: #include "%s": another module\'s internals, not '
                                    "under %s/%s/" % (f, lineno, m.group(1), FAMILIES, fam))
                    continue
                for ident in INTERNAL_NAME_RE.findall(STRING_RE.sub('""', line)):
                    if ident in declared:
                        continue
                    why = [p for p, _ in exceptions if ident.startswith(p)]
                    if why:
                        used.update(why)
                        continue
                    names.append("%s:%d: %s: declared by no header under %s/%s/"
                                 % (f, lineno, ident, FAMILIES, fam))
    stale = ["FAMILY_NAME_EXCEPTIONS: %s (%s): no family file names it any more; delete it"
             % (p, why) for p, why in exceptions if p not in used]
    return incs, names, stale


# --- --stats ----------------------------------------------------------------


def stats(g, out):
    succ = g.succ()
    w = out.write
    files = len(g.files)
    incs = len(g.includes)
    bad = [i for i in g.includes if i[4]]
    w("Include graph of %s\n" % ", ".join(sorted({p.split("/")[0] + "/" for p, _ in LAYERS})))
    w("  modules: a .c and the .h of the same stem in the same folder; an edge A -> B:\n"
      "  some file of A includes some file of B (A != B); a cycle: a strongly connected\n"
      "  component of more than one module.\n")
    w("  depth: the most include steps on a chain of modules, a cycle counting as one\n"
      "  module. up edges: with the modules ordered bottom-up (the cycles condensed and\n"
      "  ordered topologically, each module after what it includes; inside a cycle by\n"
      "  the Eades-Lin-Smyth heuristic), the includes of a module placed higher than the\n"
      "  includer; all are inside cycles, and their number is how many includes would\n"
      "  have to go for the layer to be strictly layered.\n")
    w("  layers (bottom up, may include):\n")
    for layer in layer_names():
        prefixes = ", ".join(p for p, l in LAYERS if l == layer)
        w("    %-12s %-16s may include: %s\n"
          % (layer, prefixes, ", ".join(MAY_INCLUDE.get(layer, [])) or "(nothing)"))
    w("\n")
    for layer in layer_names():
        nodes = g.layer_modules(layer)
        internal = [(a, b) for (a, b) in g.edges if a in nodes and b in nodes]
        outward = {}
        for (a, b) in g.edges:
            if a in nodes and b not in nodes:
                outward[layer_of(b)] = outward.get(layer_of(b), 0) + 1
        cyc = cycles({v: [x for x in succ[v] if x in nodes] for v in nodes})
        back = [e for e in g.back_edges() if layer_of(e[0]) == layer]
        depth, up, _ = order_figures(nodes, succ)
        w("[%s]\n" % layer)
        w("  modules: %d\n" % len(nodes))
        w("  edges inside the layer: %d\n" % len(internal))
        w("  edges to other layers: %s\n"
          % (", ".join("%s %d" % kv for kv in sorted(outward.items())) or "none"))
        w("  back edges (includes of a layer it may not include): %d\n" % len(back))
        for a, b, where in back:
            w("    %s -> %s  (%s)\n" % (a, b, "; ".join("%s:%d" % (f, n) for f, n, _ in where)))
        w("  cycles: %d, %d modules in cycles\n" % (len(cyc), sum(len(c) for c in cyc)))
        for c in cyc:
            w("    (%d) %s\n" % (len(c), " ".join(c)))
        w("  largest cycle: %s\n" % (len(cyc[0]) if cyc else "none"))
        w("  depth: %d\n" % depth)
        w("  up edges: %d\n" % len(up))
        for a, b in up:
            w("    %s -> %s\n" % (a, b))
        w("\n")
    all_cyc = cycles(succ)
    spanning = [c for c in all_cyc if len({layer_of(m) for m in c}) > 1]
    depth, up, _ = order_figures(g.modules, succ)
    w("[whole tree]\n")
    w("  files: %d; quoted includes: %d, %d ambiguous or unresolved\n" % (files, incs, len(bad)))
    for f, n, name, _, problem in bad:
        w("    %s:%d \"%s\": %s\n" % (f, n, name, problem))
    w("  modules: %d\n" % len(g.modules))
    cross = len([1 for (a, b) in g.edges if layer_of(a) != layer_of(b)])
    w("  edges: %d (%d inside a layer, %d between layers)\n"
      % (len(g.edges), len(g.edges) - cross, cross))
    w("  back edges: %d\n" % len(g.back_edges()))
    w("  cycles: %d, %d modules in cycles; spanning two layers: %d\n"
      % (len(all_cyc), sum(len(c) for c in all_cyc), len(spanning)))
    for c in spanning:
        w("    (%d) %s\n" % (len(c), " ".join(c)))
    w("  largest cycle: %s\n" % ("%d (%s)" % (len(all_cyc[0]), layer_of(all_cyc[0][0]))
                                 if all_cyc else "none"))
    w("  depth: %d\n" % depth)
    w("  up edges: %d\n" % len(up))


# --- --check ----------------------------------------------------------------


def read_baseline(path):
    """[(line number, sorted members)]"""
    entries = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            line = line.split("#", 1)[0].strip()
            if line:
                entries.append((n, sorted(line.split())))
    return entries


def n_of(n, one, many):
    return "%d %s" % (n, one if n == 1 else many)


def check(g, baseline_path, baseline, exceptions=None):
    """(ok, lines): one line per check, details indented below a failure."""
    lines = []
    ok = True
    succ = g.succ()

    def report(passed, name, summary, details=()):
        nonlocal ok
        ok = ok and passed
        lines.append("%-4s %s: %s" % ("ok" if passed else "FAIL", name, summary))
        lines.extend("       " + d for d in details)

    bad = [i for i in g.includes if i[4]]
    report(not bad, "resolve",
           "%d quoted includes, each resolved to one file of the tree" % len(g.includes)
           if not bad else "%s to no file or to several" % n_of(len(bad), "quoted include resolves", "quoted includes resolve"),
           ['%s:%d: #include "%s": %s' % (f, n, name, p) for f, n, name, _, p in bad]
           + (["a library's header: include it with <...> (or list it in EXTERNAL)"]
              if bad else []))

    back = g.back_edges()
    rule = "; ".join("%s may include %s" % (l, ", ".join(MAY_INCLUDE.get(l, [])) or "no other layer")
                     for l in layer_names())
    details = []
    for a, b, where in back:
        for f, n, name in where:
            details.append('%s:%d: #include "%s": %s (%s) -> %s (%s)'
                           % (f, n, name, a, layer_of(a), b, layer_of(b)))
    if back:
        details.append("the layers: " + rule)
    report(not back, "layers",
           "no include crosses layers the wrong way (%s)" % rule if not back
           else "%s the wrong way" % n_of(len(details) - 1, "include crosses layers", "includes cross layers"), details)

    all_cyc = cycles(succ)
    spanning = [c for c in all_cyc if len({layer_of(m) for m in c}) > 1]
    report(not spanning, "cross-layer cycles",
           "none" if not spanning else "%s two layers" % n_of(len(spanning), "cycle of modules spans", "cycles of modules span"),
           ["(%d) %s" % (len(c), " ".join("%s[%s]" % (m, layer_of(m)) for m in c))
            for c in spanning])

    layer_cyc = []
    for layer in layer_names():
        nodes = g.layer_modules(layer)
        layer_cyc.extend(cycles({v: [x for x in succ[v] if x in nodes] for v in nodes}))
    bsets = [(n, set(m)) for n, m in baseline]
    details = []
    for c in layer_cyc:
        cs = set(c)
        if any(cs <= b for _, b in bsets):
            continue
        hit = [(n, b) for n, b in bsets if cs & b]
        if hit:
            for n, b in hit:
                details.append("grown: line %d (%d modules) is now (%d) %s; new members: %s"
                               % (n, len(b), len(c), " ".join(c), " ".join(sorted(cs - b))))
        else:
            details.append("new: (%d) %s" % (len(c), " ".join(c)))
    if details:
        details.append("break the new includes (split the module that closes the cycle) "
                       "rather than growing %s" % os.path.basename(baseline_path))
    report(not details, "new or grown cycles",
           "none (%d cycles inside layers, each within its %s entry)"
           % (len(layer_cyc), os.path.basename(baseline_path)) if not details
           else "%s new or grown" % n_of(len(details) - 1, "cycle inside a layer is", "cycles inside a layer are"), details)

    current = {tuple(c) for c in layer_cyc}
    details = []
    for n, members in baseline:
        if tuple(members) in current:
            continue
        left = [c for c in layer_cyc if set(c) <= set(members)]
        if not left:
            details.append("line %d: no longer a cycle (%d modules: %s); delete the line"
                           % (n, len(members), " ".join(members)))
        else:
            details.append("line %d: shrank from %d modules; replace the line with%s"
                           % (n, len(members), ": " + " ".join(left[0]) if len(left) == 1
                              else " these %d lines: %s" % (len(left), "; ".join(
                                  " ".join(c) for c in left))))
    report(not details, "stale baseline",
           "none (%d entries, each a current cycle)" % len(baseline) if not details
           else "%s of %s %s no longer true: the baseline only shrinks"
           % (n_of(len(details), "entry", "entries"), os.path.basename(baseline_path),
              "is" if len(details) == 1 else "are"), details)

    exceptions = FAMILY_NAME_EXCEPTIONS if exceptions is None else exceptions
    incs, names, stale = family_problems(g.root, exceptions)
    report(not incs, "family includes",
           "no family file includes another module's *_int.h or *_test.h" if not incs
           else "%s another module's internals" % n_of(len(incs), "family include names",
                                                        "family includes name"),
           incs + (["include the module's published header; publish what the family needs "
                    "there (without the double underscore)"] if incs else []))
    report(not names and not stale, "family names",
           "every co__/ag__/pr__ name a family file uses is declared under its folder "
           "(%d exceptions)" % len(exceptions) if not names and not stale
           else "%s" % n_of(len(names) + len(stale), "problem", "problems"),
           names + stale + (["call the published name (co_args.h, co_plan_family.h, "
                             "co_family.h, ...), or keep the name inside the family"]
                            if names else []))
    return ok, lines


# --- --self-test ------------------------------------------------------------


def self_test():
    failures = []

    def write(root, path, includes):
        p = os.path.join(root, path)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as fh:
            for inc in includes:
                fh.write(inc + "\n")

    def tree(root, extra=None):
        files = {
            "proto/pr_a.h": [],
            "proto/pr_a.c": ['#include "pr_a.h"', '#include "pr_gen.h"', "#include <stdio.h>"],
            "proto/pr_gen.h.in": [],
            "agent/ag_x.h": ['#include "pr_a.h"'],
            "agent/ag_x.c": ['#include "ag_x.h"', '#include "ag_y.h"',
                             '/* #include "co_p.h" */', '// #include "co_p.h"'],
            "agent/sub/ag_y.h": [],
            "agent/sub/ag_y.c": ['#include "ag_y.h"', '#include "ag_x.h"', '#include "ag_y_int.h"'],
            "agent/sub/ag_y_int.h": ['#include "ag_y.h"'],  # part of agent/sub/ag_y
            "agent/ag_lone_int.h": ['#include "ag_x.h"'],  # a module: no agent/ag_lone
            "agent/sub/same.h": [],
            "agent/same.h": [],
            "agent/sub/ag_z.c": ['#include "same.h"'],  # own folder first
            "agent/main.c": ['#include "ag_x.h"'],
            "coordinator/co_p.h": ['#include "pr_a.h"'],
            "coordinator/co_p.c": ['#include "co_p.h"', '#include "co_q.h"'],
            "coordinator/co_q.h": [],
            "coordinator/co_q.c": ['#include "co_q.h"', '#include "co_p.h"'],
            "coordinator/co_r.c": ['#include "co_q.h"'],
            "coordinator/main.c": ['#include "co_r.h"'],
            "coordinator/co_r.h": [],
            "coordinator/tests/co_t.c": ['#include "ag_x.h"'],  # skipped folder
            "build-x/agent/ag_x.h": [],  # not scanned (not under a layer)
            "agent/build/ag_w.c": ['#include "co_p.h"'],  # skipped folder
            # a family: its own internals (ag_fa_int.h) only; comments and
            # strings may name anything
            "families/fa/agent/ag_fa.h": ["int ag_fa_run(void);"],
            "families/fa/agent/ag_fa_int.h": ["struct ag__fa_st {", "    int n;", "};",
                                              "int ag__fa_step(struct ag__fa_st *s,",
                                              "                int k);"],
            "families/fa/agent/ag_fa.c": ['#include "ag_fa.h"', '#include "ag_fa_int.h"',
                                          '#include "pr_a.h"', "int ag_fa_run(void)", "{",
                                          "    return ag__fa_step(0, 1); /* ag__y_x */",
                                          '    puts("ag__y_x");', "}"],
            "families/fa/tests/test_fa.c": ['#include "ag_fa_int.h"',
                                            "static struct ag__fa_st st;"],
            "agent/sub/ag_y_int.h": ['#include "ag_y.h"', "int ag__y_step(void);"],
            "coordinator/co_q_test.h": ["int co__q_peek(void);"],
        }
        files.update(extra or {})
        for path, incs in files.items():
            write(root, path, incs)

    good = "agent/ag_x agent/sub/ag_y\ncoordinator/co_p coordinator/co_q\n"

    def case(name, extra, baseline, want_ok, want=(), exceptions=()):
        with tempfile.TemporaryDirectory() as root:
            tree(root, extra)
            bpath = os.path.join(root, "cycles.txt")
            with open(bpath, "w") as fh:
                fh.write("# made up\n" + baseline)
            g = Graph(root)
            ok, lines = check(g, bpath, read_baseline(bpath), list(exceptions))
            text = "\n".join(lines)
            if ok != want_ok or any(s not in text for s in want):
                failures.append("%s: ok=%s, want %s, wanted %r in:\n%s"
                                % (name, ok, want_ok, want, text))
            return g

    g = case("clean", None, good, True, ["ok   layers", "ok   stale baseline",
                                         "ok   family includes", "ok   family names"])
    if "proto/pr_gen" not in g.modules or not any(
            e == ("proto/pr_a", "proto/pr_gen") for e in g.edges):
        failures.append("generated header: no edge proto/pr_a -> proto/pr_gen")
    if ("agent/sub/ag_z", "agent/sub/same") not in g.edges:
        failures.append("own folder first: agent/sub/ag_z -> agent/sub/same missing")
    if any("co_t" in m or "ag_w" in m or m.startswith("build") for m in g.modules):
        failures.append("skipped folders scanned: %s" % sorted(g.modules))
    if "agent/sub/ag_y_int" in g.modules or "agent/ag_lone_int" not in g.modules:
        failures.append("internal headers: %s" % sorted(g.modules))
    if len([m for m in g.modules if m.endswith("/main")]) != 2:
        failures.append("agent/main and coordinator/main are two modules")
    case("agent includes coordinator", {"agent/sub/ag_y.c": ['#include "co_q.h"']}, good, False,
         ['FAIL layers', 'agent/sub/ag_y.c:1: #include "co_q.h"'])
    case("coordinator includes agent", {"coordinator/co_r.c": ['#include "ag_x.h"']}, good, False,
         ["FAIL layers", "coordinator/co_r (coordinator) -> agent/ag_x (agent)"])
    case("proto includes agent: a cycle across layers",
         {"proto/pr_a.c": ['#include "ag_x.h"']}, good, False,
         ["FAIL layers", "FAIL cross-layer cycles", "agent/ag_x[agent]"])
    case("new cycle", None, "coordinator/co_p coordinator/co_q\n", False,
         ["FAIL new or grown cycles", "new: (2) agent/ag_x agent/sub/ag_y"])
    case("grown cycle", {"coordinator/co_r.h": ['#include "co_p.h"'],
                         "coordinator/co_q.c": ['#include "co_r.h"']}, good, False,
         ["FAIL new or grown cycles", "new members: coordinator/co_r"])
    case("cycle gone", None, good + "coordinator/co_r coordinator/main\n", False,
         ["FAIL stale baseline", "line 4: no longer a cycle", "delete the line"])
    case("cycle shrank", None, "agent/ag_x agent/sub/ag_y\n"
         "coordinator/co_p coordinator/co_q coordinator/co_r\n", False,
         ["ok   new or grown cycles", "FAIL stale baseline",
          "replace the line with: coordinator/co_p coordinator/co_q"])
    case("unresolved", {"agent/main.c": ['#include "nowhere.h"']}, good, False,
         ['FAIL resolve', 'agent/main.c:1: #include "nowhere.h": unresolved'])
    case("ambiguous", {"coordinator/main.c": ['#include "same.h"']}, good, False,
         ["FAIL resolve", "ambiguous: agent/same.h, agent/sub/same.h"])
    fa_c = ['#include "ag_fa.h"', '#include "ag_fa_int.h"', "int ag_fa_run(void)", "{"]
    case("family includes a core internal header",
         {"families/fa/agent/ag_fa.c": fa_c + ["}", '#include "ag_y_int.h"']}, good, False,
         ["FAIL family includes",
          'families/fa/agent/ag_fa.c:6: #include "ag_y_int.h": another module\'s internals'])
    case("family test includes a core test header",
         {"families/fa/tests/test_fa.c": ['#include "co_q_test.h"']}, good, False,
         ["FAIL family includes", 'families/fa/tests/test_fa.c:1: #include "co_q_test.h"'])
    case("family names a core internal",
         {"families/fa/agent/ag_fa.c": fa_c + ["    return ag__y_step();", "}"]}, good, False,
         ["FAIL family names",
          "families/fa/agent/ag_fa.c:5: ag__y_step: declared by no header under families/fa/"])
    case("family defines a core internal",
         {"families/fa/coordinator/co_fa.c": ["int co__q_peek(void)", "{", "}"]}, good, False,
         ["FAIL family names", "families/fa/coordinator/co_fa.c:1: co__q_peek"])
    case("family names an excepted internal",
         {"families/fa/agent/ag_fa.c": fa_c + ["    return ag__y_step();", "}"]}, good, True,
         ["ok   family names"], [("ag__y_", "made up")])
    case("stale exception", None, good, False,
         ["FAIL family names", "ag__gone_ (made up): no family file names it any more"],
         [("ag__gone_", "made up")])
    for f in failures:
        print("self-test FAIL " + f)
    print("self-test: %s" % ("%d failures" % len(failures) if failures else "ok, 16 trees"))
    return not failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--stats", action="store_true", help="print the figures")
    mode.add_argument("--check", metavar="BASELINE", help="the lint test")
    mode.add_argument("--self-test", action="store_true", help="test this script")
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), help="the source tree (default: this script's)")
    args = ap.parse_args()
    if args.self_test:
        return 0 if self_test() else 1
    g = Graph(args.root)
    if not g.files:
        print("include_graph: no sources under %s" % args.root, file=sys.stderr)
        return 2
    if args.stats:
        stats(g, sys.stdout)
        return 0
    ok, lines = check(g, args.check, read_baseline(args.check))
    for line in lines:
        print(line)
    if not ok:
        print("include_graph: FAILED; the layers and the baseline are in the header of "
              "tests/lint/include_graph.py and %s; --stats shows the graph" % args.check)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
