"""The game's configuration: what the players can do (the systems, the remedies, the investigations),
the clock's steps and :class:`GameConfig`.

A remedy is what an operator can do to a system (restart its hosts, throttle its incoming work,
edit DNS records by hand, turn an automation off or on), never the answer: the game offers each
verb on several systems, and only some pairs change anything in the chain model. An
investigation (look a name up in DNS, search a system's logs, look at what it depends on, query
its detailed metrics) changes nothing but costs game time, and its result, read off the models'
signals, comes back when that time has passed (:mod:`labsupport.game.investigate`).

Every action is one entry of a player's log, ``(time_s, name)``. The names of the remedies that
act in the model are those the game has always had (``repair_dns``, ``restart_dwfm`` ...); the
others are ``"verb:system"`` (``"restart_hosts:Lambda"``, ``"search_logs:DWFM"``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .._validate import Config, check_bool, check_choice, check_number, show
from ..chain import CLOCK
from ..errors import ConfigError

__all__ = [
    "ACTIONS",
    "ACTION_NAMES",
    "CLOCK",
    "HORIZON_S",
    "INVESTIGATIONS",
    "KINDS",
    "REMEDIES",
    "STEPS_S",
    "SYSTEMS",
    "VERBS",
    "Action",
    "GameConfig",
    "action_for",
]

#: The systems a team can look at and act on: name -> what it is (the real night's names; a
#: disguised game renames them, :mod:`labsupport.game.disguise`).
SYSTEMS: dict[str, str] = {
    "DynamoDB": "the key-value database and its API endpoints",
    "EC2": "the API that launches instances",
    "DWFM": "the fleet that holds a lease on every physical host (droplet) of EC2",
    "Network Manager": "the fleet that propagates network state to new instances",
    "NLB": "the network load balancers and their health checks",
    "Lambda": "functions run on demand",
    "STS": "the security token service",
    "Console sign-in": "sign-in to the web console",
    "Redshift": "the data warehouse",
    "Connect": "the contact centre service",
    "Support Center": "support cases",
}
#: The kinds of action.
KINDS: tuple[str, ...] = ("communicate", "remedy", "investigation", "undo")
#: Each verb's words on its button (a remedy or an investigation, applied to a chosen system).
VERBS: dict[str, str] = {
    "communicate": "Post a status update",
    "edit_dns": "Edit DNS records by hand",
    "restart_hosts": "Restart hosts",
    "throttle_work": "Throttle incoming work",
    "relax_throttles": "Relax every throttle",
    "automation_off": "Turn off an automation",
    "automation_on": "Turn an automation back on",
    "undo": "Undo the last action",
    "dns_lookup": "Look up its endpoint in DNS",
    "search_logs": "Search its logs",
    "dependencies": "Look at what it depends on",
    "metrics": "Query its detailed metrics",
}
#: The remedies' verbs, in button order.
REMEDIES: tuple[str, ...] = (
    "edit_dns",
    "restart_hosts",
    "throttle_work",
    "relax_throttles",
    "automation_off",
    "automation_on",
)
#: The investigations' verbs, in button order, with the game time each takes before its result is back (s).
INVESTIGATIONS: dict[str, float] = {"dns_lookup": 300.0, "search_logs": 900.0, "dependencies": 900.0, "metrics": 300.0}
#: The automation each system has that a team can turn off or on (the button names it).
_AUTOMATIONS = {"DynamoDB": "its DNS automation (DNS Planner and DNS Enactor)", "NLB": "automatic AZ DNS failover"}


@dataclass(frozen=True)
class Action:
    """One thing a team can do.

    Attributes:
        name: the key a player's log uses (``"repair_dns"``, ``"search_logs:DWFM"``).
        verb: the key of its verb in :data:`VERBS`.
        system: the system it is applied to (a key of :data:`SYSTEMS`), or ``""``.
        field: the :class:`labsupport.chain.OperatorActions` field it sets, or ``""`` (no effect on the
            models, or read by ``labsupport.game.engine.fold``: relax, undo, communicate).
        aws_id: the timeline row (:func:`labsupport.timeline.load`) at which AWS's operators took it,
            or ``""`` if the sources give no time (or none took it).
        effect: what the chain model does with it (the model's, not a fact about AWS).
        aws_note: for an action with no time in the sources, what they say of it (with its tag), or ``""``.
        kind: one of ``KINDS`` (``labsupport.game.config.KINDS``).
        cost_s: game time an investigation takes before its result comes back (0 for the others).
    """

    name: str
    verb: str
    system: str
    field: str
    aws_id: str
    effect: str
    aws_note: str = ""
    kind: str = "remedy"
    cost_s: float = 0.0

    @property
    def label(self) -> str:
        """The action's words, as the panel and the log show them (the real night's names)."""
        if self.verb in ("automation_off", "automation_on") and self.system in _AUTOMATIONS:
            return f"{VERBS[self.verb]}: {self.system}, {_AUTOMATIONS[self.system]}"
        return f"{VERBS[self.verb]}: {self.system}" if self.system else VERBS[self.verb]


def _no_effect(verb: str, system: str, why: str) -> Action:
    return Action(f"{verb}:{system}", verb, system, "", "", f"no change in the model: {why}")


_NOT_ITS_RECORDS = "its DNS records are intact in the model"
_CALLS = "in the model its errors come from what it calls"
_NOT_ITS_LOAD = "in the model its load is not what fails"

#: The remedies that act on the models, with the timeline rows of AWS's own, then the others.
_ACTING: tuple[Action, ...] = (
    Action(
        "communicate",
        "communicate",
        "",
        "",
        "dash-first-post",
        "none in the model; the debrief reads the time of the first update",
        kind="communicate",
    ),
    Action(
        "stop_automation",
        "automation_off",
        "DynamoDB",
        "automation_stopped_at_s",
        "talk-automation-off",
        "none downstream: once the record is empty the Enactors cannot fix or break it further",
    ),
    Action(
        "repair_dns",
        "edit_dns",
        "DynamoDB",
        "dns_repair_at_s",
        "ddb-dns-restored",
        "the regional endpoint gets its records back at once; caches refetch; DWFM's state checks work again",
    ),
    Action(
        "throttle_ec2",
        "throttle_work",
        "DWFM",
        "ec2_throttle_at_s",
        "dwfm-intervention",
        "DWFM refuses lease work beyond a full queue, and new launches meet 'request limit exceeded', until "
        "the throttles are relaxed; EC2 counts as recovered once they have unwound; one window a night",
    ),
    Action(
        "restart_dwfm",
        "restart_hosts",
        "DWFM",
        "dwfm_restart_at_s",
        "dwfm-intervention",
        "congested DWFM hosts drop their queues; their droplets ask again at their next state check",
    ),
    Action(
        "throttle_network",
        "throttle_work",
        "Network Manager",
        "network_throttle_at_s",
        "",
        "half of new launches are refused before they reach Network Manager (they count as failed "
        "launches) until the throttles are relaxed; one window a night",
        "A secondary account says engineers also reduced the load on Network Manager; no available copy "
        "of the summary confirms it, and no source gives a time [UNVERIFIED].",
    ),
    Action(
        "relax_throttles",
        "relax_throttles",
        "",
        "",
        "ec2-throttles-relaxed",
        "every throttle in force is relaxed: launches are no longer refused, DWFM admits all work again; "
        "EC2 counts as recovered once the throttles have unwound",
    ),
    Action(
        "disable_failover",
        "automation_off",
        "NLB",
        "failover_disabled_at_s",
        "nlb-failover-off",
        "health checks no longer take an AZ out of DNS, nor a really failed one; one window a night",
    ),
    Action(
        "reenable_failover",
        "automation_on",
        "NLB",
        "failover_reenabled_at_s",
        "nlb-failover-on",
        "health checks may fail an AZ over again",
    ),
)
_IDLE: tuple[Action, ...] = (
    *(_no_effect("edit_dns", s, _NOT_ITS_RECORDS) for s in ("EC2", "STS", "Lambda", "NLB")),
    _no_effect("restart_hosts", "DynamoDB", "in the model DynamoDB's servers are healthy: clients cannot find them"),
    *(_no_effect("restart_hosts", s, _NOT_ITS_LOAD) for s in ("EC2", "Network Manager", "NLB")),
    *(_no_effect("restart_hosts", s, _CALLS) for s in ("Lambda", "STS")),
    *(_no_effect("throttle_work", s, _NOT_ITS_LOAD) for s in ("DynamoDB", "EC2", "NLB", "Lambda")),
    _no_effect("automation_on", "DynamoDB", "once the record is empty the Enactors cannot fix or break it further"),
)
_LOOKUPS = ("DynamoDB", "EC2", "STS", "Lambda")
_METRICS = ("DynamoDB", "EC2", "DWFM", "Network Manager", "NLB")


def _investigation(verb: str, system: str) -> Action:
    minutes = int(INVESTIGATIONS[verb] // 60)
    return Action(
        f"{verb}:{system}",
        verb,
        system,
        "",
        "",
        f"none on the systems; its result, read off the models, comes back {minutes} minutes later",
        kind="investigation",
        cost_s=INVESTIGATIONS[verb],
    )


#: Every action, in the order the panel offers them: the remedies that act, the others, the
#: investigations, and undo.
ACTIONS: tuple[Action, ...] = (
    *_ACTING,
    *_IDLE,
    *(_investigation("dns_lookup", s) for s in _LOOKUPS),
    *(_investigation("search_logs", s) for s in SYSTEMS),
    *(_investigation("dependencies", s) for s in SYSTEMS),
    *(_investigation("metrics", s) for s in _METRICS),
    Action(
        "undo",
        "undo",
        "",
        "",
        "",
        "withdraws the latest action if it was taken at this same clock time; one taken earlier stays in "
        "force (take its opposite: relax, turn back on)",
        kind="undo",
    ),
)
#: The action names, in panel order.
ACTION_NAMES: tuple[str, ...] = tuple(a.name for a in ACTIONS)
_BY_PAIR = {(a.verb, a.system): a for a in ACTIONS}


def action_for(verb: str, system: str = "") -> Action | None:
    """The action a verb applied to a system is, or ``None`` if the game offers no such pair."""
    return _BY_PAIR.get((verb, system))


#: The clock's steps the players choose from: 5, 15 and 60 minutes (seconds).
STEPS_S: tuple[float, ...] = (300.0, 900.0, 3600.0)
#: How long a game lasts: 16 hours from 11:48 PM PDT (to 3:48 PM on 20 October), seconds.
HORIZON_S: float = 16 * 3600.0


_NAMES = frozenset(ACTION_NAMES)
_BY_NAME: dict[str, Action] = {a.name: a for a in ACTIONS}


def _entry(i: int, item: object, horizon_s: float) -> tuple[float, str]:
    if not isinstance(item, (tuple, list)) or len(item) != 2:
        raise ConfigError(f"actions[{i}] must be a (time_s, action) pair, got {show(item)}")
    at = check_number(f"actions[{i}] time_s", item[0], lo=0, hi=horizon_s, hi_name="horizon_s")
    if not isinstance(item[1], str) or item[1] not in _NAMES:
        raise ConfigError(
            f"actions[{i}] action must be one of the game's actions (labsupport.game.ACTION_NAMES: "
            f"'repair_dns', 'search_logs:DWFM' ...), got {show(item[1])}"
        )
    return (at, item[1])


@dataclass(frozen=True, kw_only=True)
class GameConfig(Config):
    """One game: the players' action log and where the clock stands.

    Attributes:
        actions: the log, ``(time_s, action)`` pairs in any order (sorted by time, stably, when
            played): ``time_s`` seconds since 11:48 PM PDT (0 to ``horizon_s``), ``action`` one of
            :data:`ACTION_NAMES`. Taking an action again while it is in force changes nothing;
            ``undo`` withdraws the latest earlier action not yet withdrawn if it was taken at the
            undo's own time, and leaves one taken earlier in force (see
            ``labsupport.game.engine.fold``).
            An investigation (``"search_logs:DWFM"``) changes nothing in the models; its result comes
            back its ``cost_s`` later.
        clock_s: where the clock stands (0 to ``horizon_s``): dashboards, alarms, posts and
            investigation results up to it are visible.
        horizon_s: the game's end (3,600 s to :data:`HORIZON_S`, 16 hours, the span its charts draw;
            default :data:`HORIZON_S`).
        disguised: play the disguised night (:mod:`labsupport.game.disguise`): the same models and
            mechanisms with the services renamed and the times shifted, revealed at the debrief;
            for rooms that know the story.

    Raises:
        ConfigError: a malformed entry, an unknown action, a time or clock outside [0, ``horizon_s``]
            (the message names the entry and the range).
    """

    actions: tuple[tuple[float, str], ...] = ()
    clock_s: float = 0.0
    horizon_s: float = HORIZON_S
    disguised: bool = False

    def _check(self) -> None:
        # At most HORIZON_S: the dashboards and the debrief draw 11:30 PM to 4 PM (labsupport.charts.game).
        check_number("horizon_s", self.horizon_s, lo=3600, hi=HORIZON_S)
        check_number("clock_s", self.clock_s, lo=0, hi=self.horizon_s, hi_name="horizon_s")
        if not isinstance(self.actions, (tuple, list)):
            raise ConfigError(f"actions must be a tuple of (time_s, action) pairs, got {show(self.actions)}")
        object.__setattr__(self, "actions", tuple(_entry(i, a, self.horizon_s) for i, a in enumerate(self.actions)))
        check_bool("disguised", self.disguised)

    def take(self, action: str) -> GameConfig:
        """This game with ``action`` taken now (at ``clock_s``); an investigation also moves the clock on by
        its ``cost_s`` (to ``horizon_s`` at most), when its result comes back."""
        log = (*self.actions, (self.clock_s, action))
        cost = _BY_NAME[action].cost_s if action in _BY_NAME else 0.0
        return replace(self, actions=log, clock_s=min(self.clock_s + cost, self.horizon_s))

    def advance(self, step_s: float) -> GameConfig:
        """This game with the clock ``step_s`` seconds later (one of :data:`STEPS_S`), stopping at ``horizon_s``."""
        check_choice("step_s", step_s, STEPS_S)
        return replace(self, clock_s=min(self.clock_s + float(step_s), self.horizon_s))
