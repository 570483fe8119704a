"""
The checkpoint families: each one declared in families.py, and a family's own parts, where it
computes what model.py's do not: a module its block names (Family.parts), with the interface
model.py's Classifier builds from:
Embeddings, Layer, final_norm, ClassificationHead, layer_context and shared_by_layers. ModernBERT's
are its own (modernbert.py); MPNet's relative bias (mpnet.py) and DeBERTa's disentangled attention
(deberta.py) are what they add to model.py's parts, which they take for the rest.
"""
