"""Recall over decrypted partitions: the in-memory index (`index`), keyword and fused
ranking (`ranking`), meaning (`semantic`, `embedding/`) and dates in queries (`when`)."""
