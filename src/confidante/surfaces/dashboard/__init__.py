"""The owner's dashboard: People, Community, and a separate Owner Private area.

Server-rendered (Jinja2), no scripts. What each page may show is the core's decision:
People and Community list through `Context.dashboard(owner)` (the general inspector, which
never sees owner-scope facts); Owner Private lists through `Context.owner_dashboard(owner)`
and only inside a short-lived unlock that takes the password again.
"""

from .routes import create_dashboard

__all__ = ["create_dashboard"]
