"""`/v1/stats/skills` and `/v1/stats/patterns`: count a skill call and an observed pattern
in the T1 public stats (what the tiered skill's dependents record, `confidante stats record`
and `stats pattern` in client mode).

T1 holds counts under labels the core guards (no identifiers, no T3 data; a pattern's
trigger is generalised), and no context decides anything here: any valid agent key may
count, pinned or not, as any agent may read `GET /v1/stats`.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Request
from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from ...services.credentials import AgentKey
from .routes import agent
from .routes import router as memory_routes


def _one_line(value: str) -> str:
    try:
        value.encode("utf-8")  # lone surrogates survive JSON decoding, not storage
    except UnicodeEncodeError:
        raise ValueError("must be valid Unicode text") from None
    return value


SkillName = Annotated[
    str,
    Field(min_length=1, max_length=64, examples=["weather-brief"]),
    AfterValidator(_one_line),
]
Count = Annotated[int, Field(ge=1, le=1_000_000, description="How many at once.")]


class SkillUseIn(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"skill": "weather-brief", "ok": True}]},
    )

    skill: SkillName = Field(
        description="The skill's name: a label (letters, digits, - _ .), no identifiers."
    )
    ok: bool = Field(True, description="The call succeeded (false: it failed).")
    count: Count = 1


class PatternIn(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [{"trigger": "morning request", "skills": ["weather-brief", "calendar"]}]
        },
    )

    trigger: Annotated[
        str,
        Field(
            min_length=1,
            max_length=200,
            description="What set it off; generalised on the way in (exact times become parts "
            "of the day), refused when it names someone.",
        ),
        AfterValidator(_one_line),
    ]
    skills: list[SkillName] = Field(
        min_length=1, max_length=32, description="The skills it led to."
    )
    count: Count = 1


class SkillRecordedOut(BaseModel):
    recorded: Literal["skill_use"] = "skill_use"
    skill: str
    ok: bool
    count: int


class PatternRecordedOut(BaseModel):
    recorded: Literal["pattern"] = "pattern"
    skills: list[str] = Field(description="The skills, sorted (the trigger is not repeated).")
    count: int


router = APIRouter(prefix="/v1", responses=memory_routes.responses, tags=["stats"])


@router.post(
    "/stats/skills",
    status_code=201,
    response_model=SkillRecordedOut,
    summary="Count a skill call (public stats)",
)
def record_skill(
    body: SkillUseIn, request: Request, key: AgentKey = Depends(agent)
) -> SkillRecordedOut:
    """Add `count` calls of `skill` (all succeeded, or with `ok: false` all failed) to the
    public stats that `GET /v1/stats` shows."""
    request.app.state.memory.record_skill_use(body.skill, body.ok, count=body.count)
    return SkillRecordedOut(skill=body.skill.strip(), ok=body.ok, count=body.count)


@router.post(
    "/stats/patterns",
    status_code=201,
    response_model=PatternRecordedOut,
    summary="Count an observed pattern (public stats)",
)
def record_pattern(
    body: PatternIn, request: Request, key: AgentKey = Depends(agent)
) -> PatternRecordedOut:
    """Count a trigger and the skills it led to. The trigger is stored generalised (never
    as sent); one that names a person, a place below a city or any T3 data is refused."""
    request.app.state.memory.record_pattern(body.trigger, body.skills, count=body.count)
    names = sorted({s.strip() for s in body.skills})
    return PatternRecordedOut(skills=names, count=body.count)
