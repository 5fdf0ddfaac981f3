#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""examples/llama/make_model.py OUT.gguf — writes a tiny llama made here, with
the `gguf` package: no download.  A few layers of random weights (a fixed
seed: the same file every time), Q4_0 matrices as the models Arc users run,
and a small SentencePiece-style vocabulary (the control tokens, the 256 byte
tokens, and some words), so that llama.cpp's and ollama's loaders, tokenizer
and SYCL kernels all run as they do on a real model.
  python3 make_model.py tiny.gguf [--layers N] [--embd N] [--ff N]"""
import argparse

import gguf
import numpy as np

WORDS = ("the quick brown fox jumps over lazy dog once upon a time there was little cat "
         "who lived in house by river and every day she went to see her friend bird").split()


def vocab():
    """(tokens, scores, types): <unk> <s> </s>, the byte tokens, letters and words."""
    T = gguf.TokenType
    toks = [("<unk>", 0.0, T.UNKNOWN), ("<s>", 0.0, T.CONTROL), ("</s>", 0.0, T.CONTROL)]
    toks += [("<0x%02X>" % b, 0.0, T.BYTE) for b in range(256)]
    pieces = ["\u2581"] + [chr(c) for c in range(ord("a"), ord("z") + 1)]
    pieces += ["\u2581" + w for w in dict.fromkeys(WORDS)]
    toks += [(p, -float(i + 1), T.NORMAL) for i, p in enumerate(pieces)]
    while len(toks) % 32:  # a round vocabulary size, as real ones are
        toks.append(("<extra_%d>" % len(toks), -1e4, T.UNUSED))
    return [t[0] for t in toks], [t[1] for t in toks], [t[2] for t in toks]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--embd", type=int, default=128)
    ap.add_argument("--ff", type=int, default=256)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--ctx", type=int, default=256)
    a = ap.parse_args()
    tokens, scores, types = vocab()
    nv, ne, nf, nh = len(tokens), a.embd, a.ff, a.heads
    rng = np.random.default_rng(1)

    w = gguf.GGUFWriter(a.out, "llama")
    w.add_name("jitcache-tiny-llama")
    w.add_context_length(a.ctx)
    w.add_embedding_length(ne)
    w.add_block_count(a.layers)
    w.add_feed_forward_length(nf)
    w.add_head_count(nh)
    w.add_head_count_kv(nh)
    w.add_rope_dimension_count(ne // nh)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_file_type(gguf.LlamaFileType.MOSTLY_Q4_0)
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_scores(scores)
    w.add_token_types(types)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_unk_token_id(0)
    w.add_add_bos_token(True)
    w.add_add_eos_token(False)

    def mat(name, rows, cols):
        x = (rng.standard_normal((rows, cols)) / np.sqrt(cols)).astype(np.float32)
        q = gguf.quants.quantize(x, gguf.GGMLQuantizationType.Q4_0)
        w.add_tensor(name, q, raw_shape=q.shape, raw_dtype=gguf.GGMLQuantizationType.Q4_0)

    def norm(name):
        w.add_tensor(name, np.ones(ne, dtype=np.float32))

    mat("token_embd.weight", nv, ne)
    for i in range(a.layers):
        b = "blk.%d." % i
        norm(b + "attn_norm.weight")
        for t in ("attn_q", "attn_k", "attn_v", "attn_output"):
            mat(b + t + ".weight", ne, ne)
        norm(b + "ffn_norm.weight")
        mat(b + "ffn_gate.weight", nf, ne)
        mat(b + "ffn_up.weight", nf, ne)
        mat(b + "ffn_down.weight", ne, nf)
    norm("output_norm.weight")
    mat("output.weight", nv, ne)

    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    print("%s: llama, %d layers, embedding %d, %d tokens" % (a.out, a.layers, ne, nv))


if __name__ == "__main__":
    main()
