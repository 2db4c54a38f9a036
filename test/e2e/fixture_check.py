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
  fields            the exact ordered list of response.status.details.causes[].field; [] or absent
                    for allowed answers and for errors other than 403. For 403 each field must also
                    appear in status.message.
  message_contains  substrings status.message must hold.
  warnings          substrings; the answer must have exactly that many warnings and each substring
                    must occur in a different warning. Absent = no warnings allowed.

Always checked as well: the answer echoes the request's apiVersion (v1 or v1beta1) with kind
AdmissionReview and response.uid = request.uid (for a review given as an object); a validating
answer has no patch/patchType; a 403 has reason Forbidden, one cause per field error
({type, field, message}, type one of the Kubernetes FieldValue* types) and a message that is the
Kubernetes rendering of those causes (`<field>: <message>`, several as `[e1, e2, ...]`); an
allowed answer has status.code 200.

Python 3 standard library only. Used by run_fixtures.py (offline, through the binary's `review`
subcommand) and by the e2e tests (over HTTPS).
"""

from __future__ import annotations

import json
import os

__all__ = ["load_fixtures", "load_fixture", "request_body", "check_answer", "fixture_problems"]

REVIEW_VERSIONS = ("admission.k8s.io/v1", "admission.k8s.io/v1beta1")

# status.details.causes[].type -> the type text Kubernetes puts in front of the error body.
CAUSE_TYPES = {
    "FieldValueInvalid": "Invalid value",
    "FieldValueRequired": "Required value",
    "FieldValueNotSupported": "Unsupported value",
    "FieldValueDuplicate": "Duplicate value",
    "FieldValueForbidden": "Forbidden",
}

FIXTURE_KEYS = {"description", "review", "expect"}
EXPECT_KEYS = {"http_status", "allowed", "code", "fields", "message_contains", "warnings"}

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


def load_fixtures(root: str) -> list[tuple[str, str, dict]]:
    """Every fixture under `root`, sorted: (file path, webhook path like
    "/validate-propagationpolicy", fixture). Raises ValueError on a file that is not JSON."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        rel = os.path.relpath(dirpath, root)
        if rel == ".":
            continue
        webhook = "/" + rel.replace(os.sep, "/")
        for name in sorted(filenames):
            if not name.endswith(".json"):
                continue
            path = os.path.join(dirpath, name)
            out.append((path, webhook, load_fixture(path)))
    return out


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


def fixture_problems(fixture: dict) -> list[str]:
    """Problems with the fixture itself (format, contradictory expectations)."""
    problems = []
    if not isinstance(fixture, dict):
        return ["fixture: not a JSON object"]
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
    if problems:
        return problems
    allowed, code, fields = expect["allowed"], expect["code"], expect.get("fields", [])
    if allowed and code != 200:
        problems.append("expect: allowed answers have code 200, not %d" % code)
    if not allowed and code == 200:
        problems.append("expect: a denied answer cannot have code 200")
    if fields and code != 403:
        problems.append("expect.fields must be empty unless code is 403")
    if code == 403 and not fields:
        problems.append("expect.fields must list the causes of a 403")
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


def check_answer(fixture: dict, http_status: int, body: bytes) -> list[str]:
    """Problems with `body` (the HTTP answer to request_body(fixture)) under the fixture's
    expectations; [] means it passes."""
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
    if "patch" in response or "patchType" in response:
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

    if expect["code"] == 403:
        if status.get("reason") != "Forbidden":
            problems.append("status.reason %r, expected 'Forbidden'" % (status.get("reason"),))
        if not isinstance(message, str) or not message:
            problems.append("status.message is missing")
            message = ""
        if not isinstance(causes, list):
            problems.append("status.details.causes is missing")
            causes = []
        texts = []
        got_fields = []
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
            if status.get("reason") == "Forbidden":
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
