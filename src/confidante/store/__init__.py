"""Storage backends behind one small interface."""

from .base import EventRow, FactRow, PartitionRow, PatternRow, SkillStat, Store

__all__ = ["EventRow", "FactRow", "PartitionRow", "PatternRow", "SkillStat", "Store"]
