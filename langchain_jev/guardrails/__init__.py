"""The guardrail core: hazard catalogue, batteries, what a rail judges, policy and the rail itself.

Three files tell the story; read them first:

- `_judged`: **what is judged**: every leaf of every message rendered into the
  judge input (`input_subject`, `output_subject`, `tool_results_subject`), with
  what each string hides read beside it (`_text` and its readings);
- `_battery`: **how it is decided**: `HazardBattery.invoke` asks every category's
  question about that input in one request and reads the probabilities;
- `_door`: **where the model is guarded**: `GuardrailDoor.passing` judges the
  input, calls the model unseen, judges the reply and releases it.

A rail's check yields its battery request as a step that carries the battery's
own bound method (``Ask(battery.invoke, ...)`` in `_rail`), so go-to-definition
from the door, through ``rail.judging``, lands in the battery.

Nothing here imports LangGraph or LangChain agents: the LangGraph nodes
(`langchain_jev.graph`) and the agent middleware (`langchain_jev.middleware`)
are thin spokes over it. The full map:

- `catalog`: the hazard categories (MLCommons S1-S14, prompt injection, jailbreak) and strictness presets;
- `categories`: which categories a battery asks, and each one's threshold;
- `battery`: `HazardBattery`, the prescribed questions of one direction, asked in one request;
- `text`: every string as it is, with what it hides decoded beside it; media read in media fields;
- `media`: the payload of a typed media field: an image, audio or video file, or a PDF's text;
- `bytes`: decoded bytes read as text, and the text runs inside binary (for `text` and `media`);
- `characters`: what a character of text is, one definition for `bytes` and `text`;
- `unicode_ranges`: the invisible and format characters' ranges (made by `scripts/build_unicode_ranges.py`);
- `lookalike`: words spelt with look-alike letters, read as the ASCII they imitate (a reading of `text`);
- `spellings`: text as a screen shows it, letters apart or in other alphabets, base32/85 (readings of `text`);
- `judged`: what a rail judges: every leaf of every message, read into a judge input;
- `roles`: the role a provider gives a message, and which adjacent messages it may send as one (for `judged`);
- `windows`: a long judge input cut into overlapping windows, up to a budget that refuses;
- `ledger`: which conversations a battery judged, by chain hash, out of the graph's reach;
- `policy`: the report of a check, refusal wording, and the policy (mode, on_error, exit behaviour);
- `refusal`: a refusal's wording, and the placeholders that take the refused messages' place;
- `refusal_block`: a refusal read as LangChain's standard ``refusal`` content block, its text kept;
- `review`: authenticated human review, the reviewed text kept with reviewers;
- `settings`: `GuardrailSettings`, the one settings object every form takes;
- `drive`: the I/O of a check, done by a sync or an async driver;
- `deadline`: a check's deadline, its call handed to a kept worker;
- `rail`: one check of one direction, with its policy applied;
- `door`: the model's door, one procedure: judge input, call the model hidden, judge output, release;
- `tools`: the tools' door: the exact call the model released runs once, any other is judged first;
- `calls`: the calls a door released, in their exact form, by thread, each claimed once;
- `draft`: the model's call running beside the door's checks, held, read token by token, or dropped;
- `early`: which models may start before their input is judged (an allow-list of tools and settings);
- `early_held`: what a caller's model holds, read whole for `early` (the unknown waits);
- `servers`: where a model's settings and HTTP client send a request, for `early` (allow-lists);
- `chunks`: a reply judged as it streams, cut into chunks (pure);
- `release`: judged chunks shown to the caller's streams as the model's run;
- `protocol`: a released reply as the newer protocol's events, for ``stream_events(version="v3")`` (pure);
- `hidden`: runs no handler but an allow-listed tracer may see (a rail's battery, an unchecked draft).
"""

from __future__ import annotations

from langchain_jev._lazy import lazy_exports_from_stub

__getattr__, __dir__, __all__ = lazy_exports_from_stub(__name__, __file__)
