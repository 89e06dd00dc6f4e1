#!/usr/bin/env python3
"""Lint of deploy/kubernetes (issue 29): renders the kustomize base and overlay
with `kubectl kustomize`, checks every object strictly against the API models
of python3-kubernetes (unknown keys, wrong types, missing required fields),
the PodMonitor against a small schema written here (it is a CRD the models
lack), and the project's rules: Jobs never re-run (backoffLimit 0,
restartPolicy Never), agents as an Indexed Job with parallelism ==
completions, requests == limits, hardened securityContext, no secret in
args or env values. --self-test runs the checker on mutated copies."""
import argparse, copy, datetime, re, subprocess, sys
import yaml
import kubernetes.client.models as M

KINDS = {}
for name in dir(M):
    cls = getattr(M, name)
    if isinstance(cls, type) and hasattr(cls, 'openapi_types'):
        KINDS[name] = cls

PRIMS = {'str': str, 'int': int, 'bool': bool, 'float': (int, float),
         'object': object, 'date': (str, datetime.date),
         'datetime': (str, datetime.datetime)}
SECRETY = re.compile(r'(password|passwd|secret|token|key)\s*[=:]\s*\S', re.I)


def required(cls):
    """Required attributes: the model's setter refuses None."""
    req = []
    for attr in cls.openapi_types:
        obj = cls.__new__(cls)
        obj.local_vars_configuration = type('C', (), {'client_side_validation': True})()
        try:
            setattr(obj, attr, None)
        except ValueError:
            req.append(attr)
        except Exception:
            pass
    return req


def check_type(tname, val, path, errs):
    if tname.startswith('list['):
        if not isinstance(val, list):
            errs.append(f'{path}: expected a list')
            return
        for i, v in enumerate(val):
            check_type(tname[5:-1], v, f'{path}[{i}]', errs)
    elif tname.startswith('dict('):
        if not isinstance(val, dict):
            errs.append(f'{path}: expected a map')
            return
        inner = tname[5:-1].split(', ', 1)[1]
        for k, v in val.items():
            check_type(inner, v, f'{path}.{k}', errs)
    elif tname in PRIMS:
        if tname == 'int' and isinstance(val, bool) or not isinstance(val, PRIMS[tname]):
            errs.append(f'{path}: expected {tname}, got {type(val).__name__}')
    elif tname in KINDS:
        check_model(KINDS[tname], val, path, errs)
    else:
        errs.append(f'{path}: unknown model type {tname}')


def check_model(cls, obj, path, errs):
    if cls.__name__ == 'V1ObjectMeta' or cls.openapi_types.get('spec') == 'object':
        pass
    if not isinstance(obj, dict):
        errs.append(f'{path}: expected an object ({cls.__name__})')
        return
    if cls.__name__ == 'IntOrString' or not cls.openapi_types:
        return
    rev = {v: k for k, v in cls.attribute_map.items()}
    for key, val in obj.items():
        if key not in rev:
            errs.append(f'{path}.{key}: unknown field in {cls.__name__}')
            continue
        if val is None:
            continue
        tname = cls.openapi_types[rev[key]]
        # int-or-string and quantity fields are typed 'object' in the models
        check_type(tname, val, f'{path}.{key}', errs)
    for attr in required(cls):
        if cls.attribute_map[attr] not in obj:
            errs.append(f'{path}: missing required field {cls.attribute_map[attr]} ({cls.__name__})')


PODMONITOR = {'apiVersion': str, 'kind': str,
              'metadata': {'name': str, 'namespace': str, 'labels': dict},
              'spec': {'selector': {'matchLabels': dict},
                       'podMetricsEndpoints': [{'port': str, 'path': str,
                                                'interval': str}]}}


def check_schema(schema, val, path, errs):
    if isinstance(schema, dict):
        if not isinstance(val, dict):
            errs.append(f'{path}: expected a map')
            return
        for k, v in val.items():
            if k not in schema:
                errs.append(f'{path}.{k}: unknown field in PodMonitor schema')
            else:
                check_schema(schema[k], v, f'{path}.{k}', errs)
    elif isinstance(schema, list):
        if not isinstance(val, list):
            errs.append(f'{path}: expected a list')
            return
        for i, v in enumerate(val):
            check_schema(schema[0], v, f'{path}[{i}]', errs)
    elif not isinstance(val, schema):
        errs.append(f'{path}: expected {schema.__name__}')


def model_for(doc):
    group_ver = doc.get('apiVersion', '')
    ver = group_ver.split('/')[-1]
    group = group_ver.split('/')[0].split('.')[0] if '/' in group_ver else ''
    name = ver.capitalize() + doc.get('kind', '')
    return KINDS.get(name)


def project_rules(doc, path, errs):
    kind = doc.get('kind')
    name = doc.get('metadata', {}).get('name', '?')
    if kind != 'Job':
        return
    spec = doc.get('spec', {})
    pod = spec.get('template', {}).get('spec', {})
    if spec.get('backoffLimit') != 0:
        errs.append(f'{path}: Job {name} needs backoffLimit: 0')
    if pod.get('restartPolicy') != 'Never':
        errs.append(f'{path}: Job {name} needs restartPolicy: Never')
    if 'agent' in name:
        if spec.get('completionMode') != 'Indexed':
            errs.append(f'{path}: agents need completionMode: Indexed')
        if spec.get('parallelism') != spec.get('completions'):
            errs.append(f'{path}: agents need parallelism == completions')
        if not pod.get('topologySpreadConstraints'):
            errs.append(f'{path}: agents need topologySpreadConstraints')
    psc = pod.get('securityContext', {})
    if psc.get('runAsNonRoot') is not True:
        errs.append(f'{path}: {name}: runAsNonRoot must be true')
    for c in pod.get('containers', []) + pod.get('initContainers', []):
        cp = f"{path}: {name}/{c.get('name')}"
        res = c.get('resources', {})
        if not res.get('requests') or res.get('requests') != res.get('limits'):
            errs.append(f'{cp}: resources requests must equal limits')
        sc = c.get('securityContext', {})
        if sc.get('readOnlyRootFilesystem') is not True:
            errs.append(f'{cp}: readOnlyRootFilesystem must be true')
        if sc.get('allowPrivilegeEscalation') is not False:
            errs.append(f'{cp}: allowPrivilegeEscalation must be false')
        if sc.get('capabilities', {}).get('drop') != ['ALL']:
            errs.append(f'{cp}: capabilities must drop ALL')
        for a in c.get('args', []) + c.get('command', []):
            if re.match(r'--(mysql-password|password)=', a) or SECRETY.search(a) and 'file' not in a.split('=')[0]:
                if not re.match(r'--[a-z-]*(file|key)=(/|agent-)', a) and '-key=' not in a:
                    errs.append(f'{cp}: secret in args: {a.split("=")[0]}')
        for e in c.get('env', []):
            if 'value' in e and (re.search(r'pass|secret|token|pwd|key', e.get('name', ''), re.I)):
                errs.append(f"{cp}: secret in env value {e['name']} (use a Secret file)")


def check_docs(docs, label):
    errs = []
    for i, doc in enumerate(docs):
        path = f"{label}:{doc.get('kind')}/{doc.get('metadata', {}).get('name')}"
        if doc.get('kind') == 'PodMonitor':
            check_schema(PODMONITOR, doc, path, errs)
            continue
        cls = model_for(doc)
        if cls is None:
            errs.append(f"{path}: no model for {doc.get('apiVersion')} {doc.get('kind')}")
            continue
        check_model(cls, doc, path, errs)
        project_rules(doc, path, errs)
    return errs


def render(d):
    out = subprocess.run(['kubectl', 'kustomize', d], check=True,
                         capture_output=True, text=True).stdout
    return [x for x in yaml.safe_load_all(out) if x]


def mutate(docs, fn):
    d = copy.deepcopy(docs)
    for doc in d:
        if doc.get('kind') == 'Job' and 'agent' in doc['metadata']['name']:
            fn(doc)
    return d


def self_test(docs):
    pod = lambda d: d['spec']['template']['spec']
    cont = lambda d: pod(d)['containers'][0]
    cases = {
        'restartPolicyy': lambda d: pod(d).update(restartPolicyy=pod(d).pop('restartPolicy')),
        'completionmode': lambda d: d['spec'].update(completionmode=d['spec'].pop('completionMode')),
        'env secret': lambda d: cont(d).setdefault('env', []).append({'name': 'MYSQL_PWD', 'value': 'hunter2'}),
        'password arg': lambda d: cont(d)['args'].append('--mysql-password=hunter2'),
        'wrong type': lambda d: d['spec'].update(completions='4'),
        'missing required': lambda d: cont(d).pop('name'),
        'limits != requests': lambda d: cont(d)['resources']['limits'].update(cpu='3'),
        'backoffLimit': lambda d: d['spec'].update(backoffLimit=6),
    }
    bad = 0
    if check_docs(docs, 'clean'):
        print('self-test: clean input fails'); bad += 1
    for name, fn in cases.items():
        errs = check_docs(mutate(docs, fn), name)
        print(f"self-test {name}: {'caught: ' + errs[0] if errs else 'NOT CAUGHT'}")
        bad += not errs
    pm = [copy.deepcopy(d) for d in docs if d.get('kind') == 'PodMonitor']
    pm[0]['spec']['podMetricEndpoints'] = pm[0]['spec'].pop('podMetricsEndpoints')
    errs = check_docs(pm, 'podmonitor typo')
    print(f"self-test podmonitor typo: {errs[0] if errs else 'NOT CAUGHT'}")
    bad += not errs
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--root', required=True)
    ap.add_argument('--self-test', action='store_true')
    a = ap.parse_args()
    k = a.root + '/deploy/kubernetes'
    sets = {'base': render(k + '/base'),
            'overlay': render(k + '/overlays/example'),
            'podmonitor': render(k + '/components/podmonitor')}
    if a.self_test:
        bad = self_test(sets['overlay'] + sets['podmonitor'])
        sys.exit(1 if bad else 0)
    errs = []
    for label, docs in sets.items():
        errs += check_docs(docs, label)
        print(f'{label}: {len(docs)} objects checked')
    for e in errs:
        print('error:', e)
    sys.exit(1 if errs else 0)


if __name__ == '__main__':
    main()
