"""Recorded AdmissionReview fixtures: loading them and judging an answer against them.

A fixture is `test/fixtures/<webhook>/<ID>-<slug>.json`, where `<webhook>` is the webhook's path
without the leading slash, holding:

    {"description": "...", "review": <AdmissionReview object, or a raw request body string>,
     "expect": {"http_status": 200, "allowed": false, "code": 403,
                "fields": ["spec.x"], "message_contains": ["..."], "warnings": ["..."]}}

`expect` keys (anything else is a format error, so a typo cannot hide a check):
  http_status       HTTP status of the answer (default 200).
  allowed           response.allowed (required).
  code              response.status.code (required): 200 allowed, 403 denied by rules,
                    400 decode/envelope errors, 413 too large, ...
  omitted           how many errors the answer leaves out (its last cause is `and N more errors`,
                    naming no field, after at most 100 shown); absent = none.
  fields            the exact ordered list of response.status.details.causes[].field; [] or absent
                    for allowed answers and for errors other than 403. For 403 each field must also
                    appear in status.message.
  message_contains  substrings status.message must hold.
  message           the exact status.message. With code 403 and no `fields`: a denial with a
                    message of its own and no field causes (upstream's admission.Denied, e.g.
                    RDP-1's deletion protection).
  reason            the exact status.reason (null: none). Default: Forbidden for 403, none else.
  warnings          substrings; the answer must have exactly that many warnings and each substring
                    must occur in a different warning. Absent = no warnings allowed.
  object            (mutating webhooks, required when allowed) the whole object after applying
                    response.patch per RFC 6902 (no patch = unchanged). The string "<uuid>" matches
                    any random UUIDv4. When it equals the object sent, the answer must carry no
                    patch and no patchType at all.
  then              {"webhook": "/validate-...", "expect": {...}}: the patched object is sent, in
                    the same request otherwise, to that webhook (as the API server does after
                    mutation) and judged by that expect.

ConversionReview fixtures (`test/fixtures/convert/`: a path of type "conversion") hold a
ConversionReview instead and expect what controller-runtime's conversion handler answers:

    {"description": "...", "review": <ConversionReview object, or a raw body string>,
     "expect": {"http_status": 200, "result": "Success", "objects": [...], "body": "..."},
     "upstream": "same"}

  http_status  HTTP status (default 200); 400 is answered with an empty body.
  result       response.result.status, "Success" or "Failure" (required with 200).
  objects      (Success) response.convertedObjects, as JSON values; [] for `null`.
  message      (Failure) response.result.message, exactly.
  body         (optional) the whole answer, byte for byte.
  upstream     (required) "same": upstream's binary answers exactly `expect` (status and body);
               or {"differs": "why", "http_status": N, "body": "..."}: what it answers instead,
               a deliberate difference (docs/compatibility.md, "/convert"). Not checked here:
               test_apiserver_conversion.py posts every such fixture to upstream's binary.
The answer must also echo request.uid and the review's kind/apiVersion (when not empty) and carry
no `request`.

Fixture key `flags` (optional): extra server flags the fixture needs (e.g.
["--default-rebalancer-ttl-seconds", "3600"]); given to `review` offline and to the server in e2e.

Every allowed mutating fixture is also sent again as an UPDATE of its own patched object: the
answer must carry no patch (mutation is idempotent).

Always checked as well: the answer echoes the request's apiVersion (v1 or v1beta1) with kind
AdmissionReview and response.uid = request.uid (for a review given as an object); a validating
answer has no patch/patchType; a 403 has reason Forbidden, one cause per field error
({type, field, message}, type one of the Kubernetes FieldValue* types) and a message that is the
Kubernetes rendering of those causes (`<field>: <message>`, several as `[e1, e2, ...]`); an
allowed answer has status.code 200.

What a path takes, and so how its fixtures are judged (validating, mutating: the patch applied;
conversion: a ConversionReview), is the route table's `type` (`karmada-policy-webhook routes`,
route_types), never guessed from the path's name: a fixture folder no route serves fails.

Python 3 standard library only. Used by run_fixtures.py (offline, through the binary's `review`
subcommand) and by the e2e tests (over HTTPS).
"""

from __future__ import annotations

import json
import os
import re
import subprocess

__all__ = ["load_fixtures", "load_fixture", "request_body", "check_answer", "fixture_problems",
           "run_fixture", "route_types", "apply_patch"]

CHECK_DIR = "check"  # test/fixtures/check/ holds policy files for the check command

REVIEW_VERSIONS = ("admission.k8s.io/v1", "admission.k8s.io/v1beta1")

# status.details.causes[].type -> the type text Kubernetes puts in front of the error body.
CAUSE_TYPES = {
    "FieldValueInvalid": "Invalid value",
    "FieldValueRequired": "Required value",
    "FieldValueNotSupported": "Unsupported value",
    "FieldValueDuplicate": "Duplicate value",
    "FieldValueForbidden": "Forbidden",
    "FieldValueTooLong": "Too long",
}

FIXTURE_KEYS = {"description", "review", "expect", "flags"}
# A route's `type` in `karmada-policy-webhook routes`.
VALIDATING, MUTATING, CONVERSION = "validating", "mutating", "conversion"
CONVERSION_FIXTURE_KEYS = FIXTURE_KEYS | {"upstream"}
CONVERSION_EXPECT_KEYS = {"http_status", "result", "objects", "message", "body"}
# At most this many errors are shown; the rest are one last cause `and N more errors`.
MAX_SHOWN_ERRORS = 100
OMITTED = re.compile(r"and ([0-9]+) more errors?")


def causes_summary(omitted: int) -> str:
    return "and %d more error%s" % (omitted, "" if omitted == 1 else "s")


EXPECT_KEYS = {"http_status", "allowed", "code", "fields", "message_contains", "warnings", "omitted", "object",
               "then", "message", "reason"}

# What the API server accepts of warnings (README: past 4096 characters in all, each is cut to
# 256; a warning holding a newline or tab is dropped).
MAX_WARNING_BYTES = 256
MAX_WARNINGS_BYTES = 4096


class _DuplicateKey(ValueError):
    pass


def _no_duplicates(pairs):
    out = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey("duplicate key %r" % key)
        out[key] = value
    return out


def _strict_loads(text):
    """json.loads that rejects duplicate keys."""
    return json.loads(text, object_pairs_hook=_no_duplicates)


def load_fixture(path: str) -> dict:
    """Reads one fixture file; raises ValueError when it is not a JSON object."""
    try:
        with open(path, "r", encoding="utf-8") as f:
            fixture = _strict_loads(f.read())
    except (OSError, ValueError) as e:
        raise ValueError("%s: cannot load fixture: %s" % (path, e)) from e
    if not isinstance(fixture, dict):
        raise ValueError("%s: a fixture must be a JSON object" % path)
    return fixture


def fixture_files(root: str):
    """(file path, webhook path like "/validate-propagationpolicy" or None for a file outside a
    <webhook>/ directory) for every *.json fixture under `root`, sorted; test/fixtures/check/
    (policy files for the check command) is not a webhook."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        if dirpath == root and CHECK_DIR in dirnames:
            dirnames.remove(CHECK_DIR)
        rel = os.path.relpath(dirpath, root)
        webhook = None if rel == "." else "/" + rel.replace(os.sep, "/")
        for name in sorted(filenames):
            if name.endswith(".json"):
                yield os.path.join(dirpath, name), webhook


def load_fixtures(root: str) -> list[tuple[str, str, dict]]:
    """Every fixture under `root`, sorted: (file path, webhook path, fixture). Raises ValueError
    on a file that is not JSON."""
    return [(path, webhook, load_fixture(path)) for path, webhook in fixture_files(root)
            if webhook is not None]


def request_body(fixture: dict) -> bytes:
    """The exact bytes to POST: the review serialised as JSON, or the raw string as given."""
    review = fixture.get("review")
    if isinstance(review, str):
        return review.encode("utf-8")
    return json.dumps(review, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _is_str_list(v):
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


def route_types(binary: str) -> dict[str, str]:
    """{path: type} of every route `binary` serves (`routes`: "validating", "mutating" or
    "conversion")."""
    proc = subprocess.run([binary, "routes"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=30)
    if proc.returncode != 0:
        raise RuntimeError("`%s routes` exited %d: %s" % (
            binary, proc.returncode, proc.stderr.decode("utf-8", "replace").strip()))
    return {r["path"]: r["type"] for r in json.loads(proc.stdout)}


def conversion_fixture_problems(fixture: dict) -> list[str]:
    problems = []
    for key in sorted(set(fixture) - CONVERSION_FIXTURE_KEYS):
        problems.append("fixture: unknown key %r" % key)
    if not isinstance(fixture.get("description"), str) or not fixture.get("description"):
        problems.append("fixture: 'description' must be a non-empty string")
    if not isinstance(fixture.get("review"), (dict, str)):
        problems.append("fixture: 'review' must be an object or a string (raw body)")
    upstream = fixture.get("upstream")
    if upstream != "same" and not (isinstance(upstream, dict) and
                                   set(upstream) == {"differs", "http_status", "body"} and
                                   isinstance(upstream["differs"], str) and upstream["differs"]):
        problems.append("fixture: 'upstream' must be \"same\" or {differs, http_status, body}")
    expect = fixture.get("expect")
    if not isinstance(expect, dict):
        return problems + ["fixture: 'expect' must be an object"]
    for key in sorted(set(expect) - CONVERSION_EXPECT_KEYS):
        problems.append("expect: unknown key %r" % key)
    status = expect.get("http_status", 200)
    if status == 200:
        if expect.get("result") not in ("Success", "Failure"):
            problems.append("expect.result must be \"Success\" or \"Failure\"")
        elif expect["result"] == "Success" and not isinstance(expect.get("objects"), list):
            problems.append("expect.objects must list the converted objects of a Success")
        elif expect["result"] == "Failure" and not isinstance(expect.get("message"), str):
            problems.append("expect.message must be the message of a Failure")
    elif status != 400 or set(expect) - {"http_status", "body"} or expect.get("body", "") != "":
        problems.append("expect: HTTP %r: only 400 with an empty body is not 200" % (status,))
    if "body" in expect and not isinstance(expect["body"], str):
        problems.append("expect.body must be a string")
    return problems


def check_conversion_answer(fixture: dict, http_status: int, body: bytes) -> list[str]:
    """Problems with the answer to a ConversionReview fixture."""
    problems = conversion_fixture_problems(fixture)
    if problems:
        return problems
    expect, review = fixture["expect"], fixture["review"]
    want_status = expect.get("http_status", 200)
    if http_status != want_status:
        problems.append("HTTP status %s, expected %d" % (http_status, want_status))
    text = body.decode("utf-8", "replace") if isinstance(body, (bytes, bytearray)) else body
    if "body" in expect and text != expect["body"]:
        problems.append("body %s, expected %s" % (_short(text, 600), _short(expect["body"], 600)))
    if want_status != 200:
        return problems
    try:
        answer = _strict_loads(text)
    except ValueError as e:
        return problems + ["answer is not JSON (%s): %s" % (e, _short(text))]
    if not isinstance(answer, dict) or not isinstance(answer.get("response"), dict):
        return problems + ["answer has no 'response' object: %s" % _short(text)]
    if "request" in answer:
        problems.append("the answer carries the request")
    response = answer["response"]
    if isinstance(review, dict):
        for key in ("kind", "apiVersion"):
            if isinstance(review.get(key), str) and review[key] and answer.get(key) != review[key]:
                problems.append("answer %s %r, expected %r (echo)" % (key, answer.get(key), review[key]))
        request = review.get("request")
        if isinstance(request, dict) and isinstance(request.get("uid"), str) and \
                response.get("uid") != request["uid"]:
            problems.append("response.uid %r, expected %r" % (response.get("uid"), request["uid"]))
    result = response.get("result")
    if not isinstance(result, dict) or result.get("status") != expect["result"]:
        problems.append("result %s, expected status %r" % (_short(result), expect["result"]))
        return problems
    objects = response.get("convertedObjects")
    if expect["result"] == "Success":
        if (objects or []) != expect["objects"]:
            problems.append("convertedObjects %s, expected %s" % (_short(objects, 600),
                                                                 _short(expect["objects"], 600)))
    else:
        if objects is not None:
            problems.append("a Failure with convertedObjects %s" % _short(objects))
        if result.get("message") != expect["message"]:
            problems.append("result.message %r, expected %r" % (result.get("message"), expect["message"]))
    return problems


def fixture_problems(fixture: dict, route_type: str = VALIDATING) -> list[str]:
    """Problems with the fixture itself (format, contradictory expectations), for a path of
    `route_type` (route_types)."""
    problems = []
    if not isinstance(fixture, dict):
        return ["fixture: not a JSON object"]
    if route_type == CONVERSION:
        return conversion_fixture_problems(fixture)
    for key in sorted(set(fixture) - FIXTURE_KEYS):
        problems.append("fixture: unknown key %r" % key)
    if not isinstance(fixture.get("description"), str) or not fixture.get("description"):
        problems.append("fixture: 'description' must be a non-empty string")
    if "review" not in fixture:
        problems.append("fixture: 'review' is missing")
    elif not isinstance(fixture["review"], (dict, str)):
        problems.append("fixture: 'review' must be an object or a string (raw body)")
    expect = fixture.get("expect")
    if not isinstance(expect, dict):
        problems.append("fixture: 'expect' must be an object")
        return problems
    for key in sorted(set(expect) - EXPECT_KEYS):
        problems.append("expect: unknown key %r" % key)
    if "http_status" in expect and not _is_int(expect["http_status"]):
        problems.append("expect.http_status must be an integer")
    if not isinstance(expect.get("allowed"), bool):
        problems.append("expect.allowed is required and must be a boolean")
    if not _is_int(expect.get("code")):
        problems.append("expect.code is required and must be an integer")
    for key in ("fields", "message_contains", "warnings"):
        if key in expect and not _is_str_list(expect[key]):
            problems.append("expect.%s must be a list of strings" % key)
    if "omitted" in expect and (not _is_int(expect["omitted"]) or expect["omitted"] < 1):
        problems.append("expect.omitted must be a positive integer")
    if "message" in expect and not isinstance(expect["message"], str):
        problems.append("expect.message must be a string")
    if "reason" in expect and not (expect["reason"] is None or isinstance(expect["reason"], str)):
        problems.append("expect.reason must be a string or null")
    if problems:
        return problems
    allowed, code, fields = expect["allowed"], expect["code"], expect.get("fields", [])
    if allowed and code != 200:
        problems.append("expect: allowed answers have code 200, not %d" % code)
    if not allowed and code == 200:
        problems.append("expect: a denied answer cannot have code 200")
    if fields and code != 403:
        problems.append("expect.fields must be empty unless code is 403")
    if code == 403 and not fields and "message" not in expect:
        problems.append("expect.fields must list the causes of a 403 (or expect.message give a "
                        "denial's own message)")
    return problems


def _match_warnings(substrings, warnings):
    """True when each substring can be given its own warning that contains it."""
    used = [False] * len(warnings)

    def place(i):
        if i == len(substrings):
            return True
        for j, w in enumerate(warnings):
            if not used[j] and substrings[i] in w:
                used[j] = True
                if place(i + 1):
                    return True
                used[j] = False
        return False

    return place(0)


def _short(value, limit=300):
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
    return text if len(text) <= limit else text[:limit] + "..."


def check_answer(fixture: dict, http_status: int, body: bytes,
                 route_type: str = VALIDATING) -> list[str]:
    """Problems with `body` (the HTTP answer to request_body(fixture), sent to a path of
    `route_type`) under the fixture's expectations; [] means it passes. The patch of a mutating
    answer is judged by run_fixture."""
    if route_type == CONVERSION:
        return check_conversion_answer(fixture, http_status, body)
    problems = fixture_problems(fixture)
    if problems:
        return problems
    expect = fixture["expect"]
    review = fixture["review"]

    want_status = expect.get("http_status", 200)
    if http_status != want_status:
        problems.append("HTTP status %s, expected %d" % (http_status, want_status))

    try:
        text = body.decode("utf-8") if isinstance(body, (bytes, bytearray)) else body
        answer = _strict_loads(text)
    except (UnicodeDecodeError, ValueError) as e:
        problems.append("answer is not JSON (%s): %s" % (e, _short(body if isinstance(body, str) else body.decode("utf-8", "replace"))))
        return problems
    if not isinstance(answer, dict):
        problems.append("answer is not a JSON object")
        return problems

    # Envelope: echo of apiVersion/kind and uid for a review we can read.
    request = review.get("request") if isinstance(review, dict) else None
    if isinstance(review, dict) and review.get("apiVersion") in REVIEW_VERSIONS and \
            review.get("kind", "AdmissionReview") == "AdmissionReview":
        if answer.get("apiVersion") != review["apiVersion"]:
            problems.append("answer apiVersion %r, expected %r (echo of the request)"
                            % (answer.get("apiVersion"), review["apiVersion"]))
        if answer.get("kind") != "AdmissionReview":
            problems.append("answer kind %r, expected 'AdmissionReview'" % (answer.get("kind"),))
    elif "apiVersion" in answer and answer["apiVersion"] not in REVIEW_VERSIONS:
        problems.append("answer apiVersion %r is not an AdmissionReview version" % (answer["apiVersion"],))

    response = answer.get("response")
    if not isinstance(response, dict):
        problems.append("answer has no 'response' object")
        return problems
    decodable = isinstance(review, dict) and \
        review.get("apiVersion", "admission.k8s.io/v1") in REVIEW_VERSIONS
    if decodable and isinstance(request, dict) and isinstance(request.get("uid"), str):
        if response.get("uid") != request["uid"]:
            problems.append("response.uid %r, expected %r" % (response.get("uid"), request["uid"]))
    if route_type == MUTATING:
        if ("patch" in response) != ("patchType" in response):
            problems.append("patch and patchType must come together")
        if "patchType" in response and response["patchType"] != "JSONPatch":
            problems.append("patchType %r, expected 'JSONPatch'" % (response["patchType"],))
        if "patch" in response and response.get("allowed") is not True:
            problems.append("a patch on an answer that is not allowed")
    elif "patch" in response or "patchType" in response:
        problems.append("a validating answer must carry no patch/patchType")

    allowed = response.get("allowed")
    if allowed is not expect["allowed"]:
        problems.append("allowed %r, expected %r" % (allowed, expect["allowed"]))
    status = response.get("status")
    if not isinstance(status, dict):
        problems.append("response.status is missing")
        status = {}
    code = status.get("code")
    if code != expect["code"]:
        problems.append("status.code %r, expected %d" % (code, expect["code"]))
    if allowed is True and code != 200:
        problems.append("an allowed answer must have status.code 200")

    message = status.get("message")
    details = status.get("details")
    causes = details.get("causes") if isinstance(details, dict) else None
    want_fields = expect.get("fields", [])
    if "message" in expect and message != expect["message"]:
        problems.append("status.message %s, expected %s" % (_short(message), _short(expect["message"])))
    if "reason" in expect and status.get("reason") != expect["reason"]:
        problems.append("status.reason %r, expected %r" % (status.get("reason"), expect["reason"]))

    if expect["code"] == 403 and not want_fields and "message" in expect:
        # A denial with a message of its own: no field causes.
        if causes:
            problems.append("unexpected status.details.causes %s" % _short(causes))
        if "reason" not in expect and status.get("reason") != "Forbidden":
            problems.append("status.reason %r, expected 'Forbidden'" % (status.get("reason"),))
    elif expect["code"] == 403:
        if status.get("reason") != expect.get("reason", "Forbidden"):
            problems.append("status.reason %r, expected 'Forbidden'" % (status.get("reason"),))
        if not isinstance(message, str) or not message:
            problems.append("status.message is missing")
            message = ""
        if not isinstance(causes, list):
            problems.append("status.details.causes is missing")
            causes = []
        texts = []
        got_fields = []
        omitted = 0
        if causes and isinstance(causes[-1], dict) and set(causes[-1]) == {"message"}:
            # The errors past the first 100 (or 16 KiB) are one last cause naming no field.
            summary = OMITTED.fullmatch(str(causes[-1]["message"]))
            if summary is None or int(summary.group(1)) == 0:
                problems.append("last cause %s is neither a field error nor `and N more errors`"
                                % _short(causes[-1]))
            else:
                omitted = int(summary.group(1))
                causes = causes[:-1]
        if omitted != expect.get("omitted", 0):
            problems.append("%d errors omitted, expected %d" % (omitted, expect.get("omitted", 0)))
        if omitted and len(causes) > MAX_SHOWN_ERRORS:
            problems.append("%d causes shown before the omitted ones (at most %d)" % (len(causes), MAX_SHOWN_ERRORS))
        for i, cause in enumerate(causes):
            if not isinstance(cause, dict):
                problems.append("causes[%d] is not an object" % i)
                continue
            ctype, field, cmsg = cause.get("type"), cause.get("field"), cause.get("message")
            if ctype not in CAUSE_TYPES:
                problems.append("causes[%d].type %r is not a FieldValue* type" % (i, ctype))
            if not isinstance(field, str) or not field:
                problems.append("causes[%d].field is missing" % i)
                field = "" if not isinstance(field, str) else field
            if not isinstance(cmsg, str) or not cmsg:
                problems.append("causes[%d].message is missing" % i)
                cmsg = "" if not isinstance(cmsg, str) else cmsg
            elif ctype in CAUSE_TYPES and not cmsg.startswith(CAUSE_TYPES[ctype]):
                problems.append("causes[%d] of type %s has message %r (expected it to start with %r)"
                                % (i, ctype, cmsg, CAUSE_TYPES[ctype]))
            got_fields.append(field)
            texts.append("%s: %s" % (field, cmsg))
        if got_fields != want_fields:
            problems.append("fields %s, expected %s" % (json.dumps(got_fields), json.dumps(want_fields)))
        for f in want_fields:
            if f not in message:
                problems.append("status.message does not name field %r" % f)
        if texts and message:
            if len(set(texts)) != len(texts):
                problems.append("causes repeat an identical error (identical texts must be reported once)")
            if omitted:
                texts.append(causes_summary(omitted))
            rendered = texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"
            if message != rendered:
                problems.append("status.message is not the rendering of its causes (one cause per error): "
                                "got %s, causes render as %s" % (_short(message), _short(rendered)))
    else:
        if causes:
            problems.append("unexpected status.details.causes %s" % _short(causes))
        if expect["allowed"] is False:
            if not isinstance(message, str) or not message:
                problems.append("status.message is missing")
            if status.get("reason") == "Forbidden" and "reason" not in expect:
                problems.append("status.reason 'Forbidden' belongs to code 403 only")

    for sub in expect.get("message_contains", []):
        if not isinstance(message, str) or sub not in message:
            problems.append("status.message does not contain %r (message: %s)" % (sub, _short(message)))

    warnings = response.get("warnings", [])
    if not _is_str_list(warnings):
        problems.append("response.warnings is not a list of strings")
        warnings = []
    want_warnings = expect.get("warnings", [])
    if len(warnings) != len(want_warnings) or not _match_warnings(want_warnings, warnings):
        problems.append("warnings %s, expected %d matching %s"
                        % (_short(warnings), len(want_warnings), json.dumps(want_warnings)))
    total = 0
    for w in warnings:
        size = len(w.encode("utf-8"))
        total += size
        if "\n" in w or "\t" in w:
            problems.append("warning %r holds a newline or tab (the API server drops it)" % w)
        if size > MAX_WARNING_BYTES:
            problems.append("warning longer than %d bytes: %s" % (MAX_WARNING_BYTES, _short(w)))
    if total > MAX_WARNINGS_BYTES:
        problems.append("warnings exceed %d bytes in all" % MAX_WARNINGS_BYTES)
    return problems


# ---- mutating webhooks: RFC 6902 patches applied to the object as sent ----

import base64
import copy

_UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def _tokens(pointer):
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError("JSON pointer %r does not start with '/'" % pointer)
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer[1:].split("/")]


def _parent(doc, tokens, pointer):
    node = doc
    for t in tokens[:-1]:
        if isinstance(node, dict) and t in node:
            node = node[t]
        elif isinstance(node, list) and t.isdigit() and int(t) < len(node):
            node = node[int(t)]
        else:
            raise ValueError("path %s: parent does not exist" % pointer)
    return node


def apply_patch(doc, ops):
    """Applies RFC 6902 add/replace/remove ops strictly (a missing parent, or replace/remove of a
    missing member, is an error, as the API server treats it). Returns the new document."""
    doc = copy.deepcopy(doc)
    if not isinstance(ops, list):
        raise ValueError("the patch is not a JSON array")
    for op in ops:
        if not isinstance(op, dict) or set(op) - {"op", "path", "value", "from"}:
            raise ValueError("malformed op %r" % (op,))
        kind, pointer = op.get("op"), op.get("path")
        tokens = _tokens(pointer)
        if kind in ("add", "replace") and "value" not in op:
            raise ValueError("%s %s without a value" % (kind, pointer))
        if not tokens:
            if kind in ("add", "replace"):
                doc = copy.deepcopy(op["value"])
                continue
            raise ValueError("cannot %s the whole document" % kind)
        parent, last = _parent(doc, tokens, pointer), tokens[-1]
        if isinstance(parent, dict):
            if kind == "add":
                parent[last] = copy.deepcopy(op["value"])
            elif kind in ("replace", "remove"):
                if last not in parent:
                    raise ValueError("%s %s: no such member" % (kind, pointer))
                if kind == "replace":
                    parent[last] = copy.deepcopy(op["value"])
                else:
                    del parent[last]
            else:
                raise ValueError("unsupported op %r" % kind)
        elif isinstance(parent, list):
            if kind == "add" and last == "-":
                parent.append(copy.deepcopy(op["value"]))
                continue
            if not last.isdigit():
                raise ValueError("%s %s: bad array index" % (kind, pointer))
            i = int(last)
            if kind == "add":
                if i > len(parent):
                    raise ValueError("add %s: index out of range" % pointer)
                parent.insert(i, copy.deepcopy(op["value"]))
            elif kind in ("replace", "remove"):
                if i >= len(parent):
                    raise ValueError("%s %s: index out of range" % (kind, pointer))
                if kind == "replace":
                    parent[i] = copy.deepcopy(op["value"])
                else:
                    del parent[i]
            else:
                raise ValueError("unsupported op %r" % kind)
        else:
            raise ValueError("path %s: parent is not a container" % pointer)
    return doc


def _same(want, got, path="", out=None):
    """Differences between an expected object (with "<uuid>" wildcards) and the actual one."""
    out = [] if out is None else out
    if want == "<uuid>":
        if not (isinstance(got, str) and _UUID4.match(got)):
            out.append("%s: %s is not a random UUIDv4" % (path or "/", _short(got)))
    elif isinstance(want, dict) and isinstance(got, dict):
        for k in sorted(set(want) | set(got)):
            p = path + "/" + k.replace("~", "~0").replace("/", "~1")
            if k not in got:
                out.append("%s: missing (expected %s)" % (p, _short(want[k])))
            elif k not in want:
                out.append("%s: unexpected %s" % (p, _short(got[k])))
            else:
                _same(want[k], got[k], p, out)
    elif isinstance(want, list) and isinstance(got, list) and len(want) == len(got):
        for i, (w, g) in enumerate(zip(want, got)):
            _same(w, g, "%s/%d" % (path, i), out)
    elif type(want) != type(got) or want != got:
        out.append("%s: %s, expected %s" % (path or "/", _short(got), _short(want)))
    return out


def _review_with(review, object_, operation=None, old_object=None):
    r = copy.deepcopy(review)
    r["request"]["object"] = object_
    if operation is not None:
        r["request"]["operation"] = operation
        r["request"]["oldObject"] = old_object
    return r


def _decode_patch(response):
    if "patch" not in response:
        return []
    return _strict_loads(base64.b64decode(response["patch"], validate=True).decode("utf-8"))


def run_fixture(webhook: str, fixture: dict, send, types: dict[str, str]) -> list[str]:
    """Runs one fixture through `send(webhook, body_bytes) -> (http_status, body_bytes)` (offline
    or over HTTPS) and returns its problems; `types` is route_types() of the binary. For a
    mutating webhook: applies the patch, compares the object, checks idempotency and runs `then`."""
    route_type = types.get(webhook)
    if route_type is None:
        return ["no route serves %s (`karmada-policy-webhook routes`)" % webhook]
    problems = fixture_problems(fixture, route_type)
    if problems:
        return problems
    status, body = send(webhook, request_body(fixture))
    problems = check_answer(fixture, status, body, route_type)
    expect = fixture["expect"]
    if problems or route_type != MUTATING or not expect["allowed"]:
        return problems
    review = fixture["review"]
    if not isinstance(review, dict) or "object" not in expect:
        return ["expect.object is required for an allowed mutating fixture with a review object"]
    response = json.loads(body)["response"]
    original = review["request"]["object"]
    try:
        ops = _decode_patch(response)
        patched = apply_patch(original, ops)
    except (ValueError, TypeError, KeyError, IndexError) as e:
        return ["the patch does not apply: %s" % e]
    if "patch" in response and not ops:
        problems.append("an empty patch must be left out (no patch/patchType)")
    problems += ["object after patch: " + d for d in _same(expect["object"], patched)]
    if patched == original and "patch" in response:
        problems.append("a patch that changes nothing")
    if problems:
        return problems
    # Idempotency: the stored object, sent again as an UPDATE, needs nothing more.
    again = _review_with(review, patched, "UPDATE", patched)
    status2, body2 = send(webhook, request_body({"review": again}))
    try:
        response2 = json.loads(body2)["response"]
        ops2 = _decode_patch(response2)
    except (ValueError, KeyError, TypeError) as e:
        return ["idempotency: undecodable answer (%s)" % e]
    if status2 != 200 or response2.get("allowed") is not True or ops2 or "patch" in response2:
        problems.append("idempotency: the patched object sent again as UPDATE got %s"
                        % _short(json.loads(body2)))
    then = expect.get("then")
    if then is not None:
        if not isinstance(then, dict) or not isinstance(then.get("webhook"), str) or \
                not isinstance(then.get("expect"), dict):
            return problems + ["expect.then must be {webhook, expect}"]
        follow = {"description": fixture["description"] + " (then " + then["webhook"] + ")",
                  "review": _review_with(review, patched), "expect": then["expect"]}
        follow["review"]["request"]["kind"] = review["request"]["kind"]
        problems += ["then %s: %s" % (then["webhook"], p)
                     for p in run_fixture(then["webhook"], follow, send, types)]
    return problems
