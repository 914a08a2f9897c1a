"""Storage backends behind one small interface."""

from .base import DenialRow, FactRow, PartitionRow, Store

__all__ = ["DenialRow", "FactRow", "PartitionRow", "Store"]
