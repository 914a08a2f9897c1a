"""Sealing facts and keys: AES-256-GCM (`crypto`), per-partition data keys wrapped by the
master key and keyed ids (`keyring`), facts to and from stored rows (`records`), and master
key files (`keyfile`)."""
