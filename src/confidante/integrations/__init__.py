"""Adapters for agent frameworks: `langgraph` (a LangGraph `BaseStore` bound to a
Context; `pip install 'confidante[langgraph]'`) and `mem0` (Mem0's call shapes over
confidante). Each maps the framework's ids to a Context; none can widen what it sees."""
