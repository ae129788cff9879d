"""Hypothesis strategies for hostile JSON: wrong types, huge strings, deep nesting, odd Unicode, NUL bytes,
lone surrogates, unknown fields. Each draws the raw request body as bytes, so nesting deeper than any JSON
encoder allows can be sent too."""
import json

from hypothesis import strategies as st

from forum.acts import ACTS

ODD_TEXTS = [
    "", " ", "\x00", "a\x00b", "\ud800", "x\udfffy", "\u202eevil", "\ufeffbom", "\u200b", "\u3000\u3000",
    "👩\u200d👩\u200d👧", "e\u0301", "\U0010ffff", "\r\n\t", "th_1", "msg_1", "th_0", "-1", "1e3", "NaN",
    "a" * 501, "é" * 500, "x" * 20000,
]

odd_text = st.one_of(
    st.sampled_from(ODD_TEXTS),
    st.text(st.characters(exclude_categories=()), max_size=60),  # includes lone surrogates
    st.text(max_size=600),
)
scalar = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False), odd_text,
)
any_json = st.recursive(scalar, lambda inner: st.lists(inner, max_size=4)
                        | st.dictionaries(odd_text, inner, max_size=4), max_leaves=12)
ref_like = st.one_of(st.integers(min_value=-5, max_value=10**19), st.sampled_from(["th_1", "1", "msg_1", "th_"]),
                     any_json)
kind_like = st.one_of(st.sampled_from(list(ACTS) + ["assert", "verify", "ASK", "ask "]), any_json)

envelope_like = st.fixed_dictionaries({}, optional={
    "parley": st.one_of(st.just("1"), any_json),
    "kind": kind_like,
    "body": st.one_of(odd_text, any_json),
    "thread": ref_like,
    "parent": ref_like,
    "from": st.one_of(st.fixed_dictionaries({}, optional={"extension": odd_text, "identity": odd_text}), any_json),
    "provenance": st.one_of(st.fixed_dictionaries({}, optional={"model": odd_text, "client": odd_text}), any_json),
    "id": any_json,
    "proof": any_json,
    "x-unknown": any_json,
})


# Stands for the id of a thread that exists, which the test substitutes: the ids differ between databases.
THREAD = "@THREAD@"

nearly_valid = st.fixed_dictionaries(
    {"kind": st.sampled_from(list(ACTS)), "body": st.one_of(st.text(min_size=1, max_size=520), odd_text)},
    optional={
        "thread": st.sampled_from([THREAD, THREAD, "th_999999999", 0, "@THREAD@x"]),
        "parent": st.one_of(st.integers(min_value=1, max_value=10**6), st.sampled_from(["msg_1", THREAD])),
        "from": st.fixed_dictionaries({"extension": st.one_of(st.from_regex(r"[a-z0-9][a-z0-9._-]{0,70}",
                                                                            fullmatch=True), odd_text)}),
        "provenance": st.fixed_dictionaries({}, optional={"model": odd_text, "client": odd_text}),
        "parley": st.sampled_from(["1", "2", 1]),
    })


def deeply_nested(depth, opener):
    closer = {"[": "]", '{"a":': "}"}[opener]
    return (opener * depth + "1" + closer * depth).encode()


hostile_body = st.one_of(
    nearly_valid.map(lambda value: json.dumps(value).encode()),
    nearly_valid.map(lambda value: json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")),
    envelope_like.map(lambda value: json.dumps(value).encode()),
    any_json.map(lambda value: json.dumps(value).encode()),
    st.builds(deeply_nested, st.integers(min_value=20, max_value=5000), st.sampled_from(["[", '{"a":'])),
    st.binary(max_size=200),  # not JSON, or not UTF-8
    st.sampled_from([b"", b"null", b"NaN", b'{"kind": NaN}', b'{"kind": Infinity}', b"\xff\xfe",
                     b'{"kind": "ask", "body": "\\ud800"}', b'{"kind": "ask", "body": "a\\u0000b"}',
                     b'{"kind": "ask", "kind": "note", "body": "dup"}']),
)
