#!/usr/bin/env python3
"""Generates the fixed-arity send overloads of Am (requests) and Token (replies) between marker comments.

Fixed-arity overloads keep the data path free of varargs arrays; the int[] form covers 5..16 args.
Token also gets a Medium reply whose source is the request's delivered Payload (kind "MediumEcho"), so a handler
can reply with what it received without copying it into a buffer of its own first.
Run from the repository root after changing the send signatures: python3 tools/gen_am_overloads.py
"""
import re

MAX_FIXED = 4
BEGIN = "    // BEGIN GENERATED SENDS (tools/gen_am_overloads.py)\n"
END = "    // END GENERATED SENDS\n"


def params(n):
    return "".join(f", int a{i}" for i in range(n))


def puts(n):
    return "".join(f"        b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + {4 * i}, a{i});\n" for i in range(n))


def family(kind, req):
    """kind: Short/Medium/Long, or MediumEcho (replies only). Returns java source of all overloads."""
    out = []
    peer = "peer" if req else "source"
    chan = "Conduit.REQUEST" if req else "Conduit.REPLY"
    name = ("request" if req else "reply") + kind.replace("Echo", "")
    payload_decl = {"Short": "", "Medium": "MemorySegment src, long srcOffset, long nbytes, Lc lc, ",
                    "Long": "MemorySegment src, long srcOffset, long nbytes, long dest, Lc lc, ",
                    "MediumEcho": "Payload src, long srcAt, long nbytes, Lc lc, "}[kind]
    target = "this" if req else "am"
    token = "null" if req else "this"

    def begin(nargs, flags):
        if kind == "MediumEcho":
            return (f"{target}.beginMedium({target}.sendClaim(), {token}, {peer}, {chan}, handler, {nargs}, {flags}, src, "
                    f"srcAt, nbytes, lc)")
        payload_args = {"Short": "null, 0, 0, 0, Lc.NOW", "Medium": "src, srcOffset, nbytes, 0, lc",
                        "Long": "src, srcOffset, nbytes, dest, lc"}[kind]
        return (f"{target}.begin({target}.sendClaim(), {token}, {peer}, {chan}, AmFrameFlyweight.CATEGORY_{kind.upper()}, "
                f"handler, {nargs}, {flags}, {payload_args})")
    pre = ("        checkRequestContext();\n" if req else "        am.checkReplyContext(this);\n")
    post_ok = "" if req else "        replied = true;\n"
    doc_what = {"Short": "a Short", "Medium": "a Medium", "Long": "a Long", "MediumEcho": "a Medium"}[kind]
    doc_src = " and {@code nbytes} of {@code src} from {@code srcAt} as payload" if kind == "MediumEcho" else ""
    for n, immediate in [(n, i) for i in (False, True) for n in range(MAX_FIXED + 1)]:
        sig_parts = (["int peer"] if req else []) + ["int handler"]
        if payload_decl:
            sig_parts += [p.strip() for p in payload_decl.strip().rstrip(",").split(",")]
        sig_parts += [f"int a{i}" for i in range(n)]
        if immediate:
            # GEX_FLAG_IMMEDIATE on the explicit-argument forms: a name, since a flags int would clash with an arg
            method = "try" + name[0].upper() + name[1:]
            doc = (f"    /**\n     * Sends {doc_what} {'request' if req else 'reply'} with {n} args{doc_src} only if "
                   f"resources are free now ({{@link org.gexj.Flags#IMMEDIATE}}).\n     *\n"
                   f"     * @return {{@link Am#OK}}, or {{@link Am#BACK_PRESSURED}} with nothing sent\n     */\n")
        else:
            method = name
            doc = (f"    /** Sends {doc_what} {'request' if req else 'reply'} with {n} args{doc_src}; waits for resources. "
                   f"@return {{@link Am#OK}} */\n")
        out.append(doc +
                   f"    public int {method}(" + ", ".join(sig_parts) + ") {\n" + pre +
                   f"        final Claim c = {begin(n, 'Flags.IMMEDIATE' if immediate else 0)};\n"
                   f"        if (c == null) {{\n            return Am.BACK_PRESSURED;\n        }}\n"
                   f"        final AtomicBuffer b = c.buffer();\n        final int at = c.offset();\n"
                   + puts(n) +
                   f"        {target}.commit(c);\n" + post_ok +
                   "        return Am.OK;\n    }\n")
    # array form with flags
    sig_parts = (["int peer"] if req else []) + ["int handler"]
    if payload_decl:
        sig_parts += [p.strip() for p in payload_decl.strip().rstrip(",").split(",")]
    sig_parts += ["int flags", "int[] args", "int nargs"]
    out.append(f"""    /**
     * Sends {doc_what} {'request' if req else 'reply'} with {{@code nargs}} args taken from {{@code args}} (reused by the caller){doc_src}.
     *
     * @param flags 0 or {{@link org.gexj.Flags#IMMEDIATE}}
     * @return {{@link Am#OK}}, or {{@link Am#BACK_PRESSURED}} if IMMEDIATE and resources were short (nothing sent)
     */
    public int {name}(""" + ", ".join(sig_parts) + ") {\n" + pre +
        "        Am.checkArgs(args, nargs);\n"
        f"        final Claim c = {begin('nargs', 'flags')};\n"
        f"        if (c == null) {{\n            return Am.BACK_PRESSURED;\n        }}\n"
        f"        final AtomicBuffer b = c.buffer();\n        final int at = c.offset();\n"
        "        for (int i = 0; i < nargs; i++) {\n"
        "            b.putInt(at + AmFrameFlyweight.ARGS_OFFSET + 4 * i, args[i]);\n        }\n"
        f"        {target}.commit(c);\n" + post_ok +
        "        return Am.OK;\n    }\n")
    return "\n".join(out)


def splice(path, body):
    s = open(path).read()
    i = s.index(BEGIN) + len(BEGIN)
    j = s.index(END)
    open(path, "w").write(s[:i] + body + s[j:])


if __name__ == "__main__":
    base = "gex-am/src/main/java/org/gexj/am/"
    splice(base + "Am.java", "\n".join(family(k, True) for k in ("Short", "Medium", "Long")))
    splice(base + "Token.java", "\n".join(family(k, False) for k in ("Short", "Medium", "MediumEcho", "Long")))
