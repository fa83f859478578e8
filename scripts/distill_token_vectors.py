"""Write the `learned` intent matcher's static token vectors (src/capabench/simulate/intent/
token_vectors.npz) from MiniLM (all-MiniLM-L6-v2, Apache-2.0), as model2vec does: each token
of its WordPiece vocabulary through the model alone, mean-pooled, then projected on the
first DIMENSIONS principal components and stored as int8. A question's words then weigh by
meaning, not only by spelling: "journal" lands near "log" though no bank message says it.
Needs the embeddings extra (sentence-transformers, torch); the matcher itself needs only
numpy. Retrain the weights afterwards (scripts/train_intent_model.py).

    python scripts/distill_token_vectors.py
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import numpy as np

from capabench.simulate.intent.evidence import TOKEN_VECTORS

DIMENSIONS = 128
BATCH = 512


def distill(model_path: str) -> tuple[list[str], np.ndarray]:
    import torch
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(model_path, device="cpu")
    vocab = (Path(model_path) / "vocab.txt").read_text().splitlines()
    # ASCII tokens only: special tokens and other scripts never meet the matcher's text
    keep = [i for i, t in enumerate(vocab) if t.isascii() and not t.startswith("[")]
    bert, tokenizer = model[0].auto_model.eval(), model.tokenizer
    out = np.zeros((len(keep), bert.config.hidden_size), np.float32)
    with torch.no_grad():
        for start in range(0, len(keep), BATCH):
            ids = torch.tensor(
                [[tokenizer.cls_token_id, i, tokenizer.sep_token_id] for i in keep[start:][:BATCH]]
            )
            hidden = bert(input_ids=ids, attention_mask=torch.ones_like(ids)).last_hidden_state
            out[start : start + len(ids)] = hidden.mean(1).numpy()
            print(f"{start + len(ids)}/{len(keep)} tokens", end="\r", flush=True)
    print()
    centred = out - out.mean(0)
    _, _, components = np.linalg.svd(centred, full_matrices=False)
    return [vocab[i] for i in keep], centred @ components[:DIMENSIONS].T


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=TOKEN_VECTORS)
    out = parser.parse_args().out
    from capabench.history.embed import DEFAULT_EMBEDDER, _model_path

    tokens, vectors = distill(_model_path(DEFAULT_EMBEDDER))
    # One scale for every value: a sum of token rows is exact in integers on every machine.
    quantized = np.round(vectors * (127 / np.abs(vectors).max())).astype(np.int8)
    partial = out.with_name(out.name + ".partial.npz")  # whole or not at all
    np.savez_compressed(partial, tokens=np.array(tokens), vectors=quantized)
    os.replace(partial, out)
    print(f"wrote {out}: {len(tokens)} tokens x {DIMENSIONS}")


if __name__ == "__main__":
    main()
