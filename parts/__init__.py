"""
A checkpoint family's own parts, where it computes what model.py's do not: a module a family's block
in families.py names (Family.parts), with the interface model.py's Classifier builds from:
Embeddings, Layer, final_norm, ClassificationHead and layer_context (ModernBERT: modernbert.py), or
what model.py's parts call for one family (DeBERTa's disentangled attention: deberta.py).
"""
