"""ID layouts and decoding: the Python twin of the Java ``io.idmint.Layout``.

A layout says which fields an ID has, how wide each is, in which order (the most significant
first, always ``time``), the length of one time tick and the epoch. :meth:`Layout.parse` takes
the same specs as the server (``--layout``) and refuses a malformed one naming the part.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass
from typing import ClassVar, Dict, List, Optional, Tuple, Union

__all__ = ["Layout", "IdParts", "decode", "DEFAULT_EPOCH_MS", "TWITTER_EPOCH_MS"]

#: 2026-01-01T00:00:00Z, the epoch of idmint's own presets and of custom layouts.
DEFAULT_EPOCH_MS = 1_767_225_600_000
#: 2010-11-04T01:42:54.657Z, the epoch of Twitter Snowflake and Meituan Leaf.
TWITTER_EPOCH_MS = 1_288_834_974_657

_LONG_MAX = (1 << 63) - 1
_INT_MAX = (1 << 31) - 1

#: The fields an ID may have, in the order Java's ``Layout.Field`` declares them.
FIELDS: Tuple[str, ...] = ("time", "datacenter", "worker", "shard", "sequence")
_ALIASES: Dict[str, str] = {
    "time": "time",
    "datacenter": "datacenter", "dc": "datacenter", "region": "datacenter",
    "worker": "worker", "machine": "worker",
    "shard": "shard",
    "sequence": "sequence", "seq": "sequence",
}
_JAVA_INT = re.compile(r"[+-]?[0-9]+\Z")


@dataclass(frozen=True)
class IdParts:
    """The parts of one ID, as :func:`decode` reads them.

    ``timestamp_ms`` is Unix milliseconds at the start of the ID's tick; fields a layout does
    not have read 0.
    """

    id: int
    timestamp_ms: int
    datacenter: int
    worker: int
    shard: int
    sequence: int

    @property
    def timestamp(self) -> _dt.datetime:
        """``timestamp_ms`` as an aware UTC datetime."""
        return _dt.datetime.fromtimestamp(self.timestamp_ms / 1000, tz=_dt.timezone.utc)


class Layout:
    """The bit layout of an ID (see the module docstring). Build one with :meth:`parse`.

    Two layouts with the same :attr:`spec` are equal.
    """

    __slots__ = ("_name", "_order", "_width", "_shift", "total_bits", "tick_ms", "epoch_ms")

    _PRESET_SPECS: ClassVar[Tuple[Tuple[str, str], ...]] = (
        ("snowflake", "time=41,datacenter=5,worker=5,sequence=12"),
        ("region", "time=41,datacenter=3,worker=10,sequence=9"),
        ("instagram", "time=41,shard=13,sequence=9"),
        ("sonyflake", "time=39,sequence=8,worker=16,tick=10ms"),
        ("uid-generator", "time=28,worker=22,sequence=13,tick=1s"),
        ("js-safe", "time=41,worker=5,sequence=7"),
        ("leaf", "time=41,worker=10,sequence=12,epoch=%d" % TWITTER_EPOCH_MS),
        ("twitter", "time=41,datacenter=5,worker=5,sequence=12,epoch=%d" % TWITTER_EPOCH_MS),
        ("discord", "time=42,datacenter=5,worker=5,sequence=12,epoch=2015-01-01T00:00:00Z"),
        ("sonyflake-2014", "time=39,sequence=8,worker=16,tick=10ms,epoch=2014-09-01T00:00:00Z"),
        ("uid-generator-2016", "time=28,worker=22,sequence=13,tick=1s,epoch=1463673600000"),
    )
    _presets: ClassVar[List["Layout"]] = []

    def __init__(self, name: Optional[str], order: List[Tuple[str, int]], tick_ms: int,
                 epoch_ms: int) -> None:
        self._name = name
        self._order: Tuple[Tuple[str, int], ...] = tuple(order)
        self._width: Dict[str, int] = {f: 0 for f in FIELDS}
        self._shift: Dict[str, int] = {f: 0 for f in FIELDS}
        bits = 0
        for field, width in reversed(order):
            self._width[field] = width
            self._shift[field] = bits
            bits += width
        #: Bits used in all; IDs are below ``2 ** total_bits``.
        self.total_bits: int = bits
        #: The length of one time tick, in milliseconds.
        self.tick_ms: int = tick_ms
        #: Unix milliseconds of tick 0.
        self.epoch_ms: int = epoch_ms

    # ----------------------------------------------------------------------------- parsing

    @classmethod
    def parse(cls, spec: str) -> "Layout":
        """Parses a layout spec, as the server's ``--layout`` does.

        A preset name (``snowflake``, ``region``, ``instagram``, ``sonyflake``,
        ``uid-generator``, ``js-safe``, ``leaf``, ``twitter``, ``discord``,
        ``sonyflake-2014``, ``uid-generator-2016``), optionally followed by ``,epoch=…`` or
        ``,tick=…``; or fields from the most significant down, e.g.
        ``time=41,datacenter=5,worker=5,sequence=12,tick=1ms,epoch=2026-01-01T00:00:00Z``
        (default tick 1ms, default epoch 2026-01-01T00:00:00Z).

        :raises ValueError: naming the offending part when the spec is not valid
        """
        if not isinstance(spec, str):
            raise TypeError("layout spec must be a str, got %r" % (spec,))
        if not spec.strip():
            raise ValueError("layout spec is empty; use a preset name such as 'snowflake' or "
                             "fields such as 'time=41,datacenter=5,worker=5,sequence=12'")
        trimmed = spec.strip()
        head = trimmed.split(",", 1)[0].strip().lower()
        if "=" in head:
            return cls._parse_fields(trimmed, None)
        base = next((p for p in cls.presets() if p.name == head), None)
        if base is None:
            raise ValueError("unknown layout preset '%s'; presets are %s"
                             % (head, ", ".join(p.name for p in cls.presets())))
        rest = trimmed[trimmed.index(",") + 1:] if "," in trimmed else ""
        if not rest.strip():
            return base
        overrides: Dict[str, str] = {}
        for part in rest.split(","):
            kv = part.split("=", 1)
            key = kv[0].strip().lower()
            if len(kv) != 2 or key not in ("tick", "epoch"):
                raise ValueError("layout '%s': a preset takes only 'epoch=' and 'tick=' after "
                                 "its name, not '%s'; write all fields instead to change widths"
                                 % (spec, part.strip()))
            if key in overrides:
                raise ValueError("layout '%s': %s given twice" % (spec, key))
            overrides[key] = kv[1].strip()
        fields = "".join("%s=%d," % fw for fw in base._order)
        fields += "tick=" + overrides.get("tick", _format_tick(base.tick_ms))
        fields += ",epoch=" + overrides.get("epoch", str(base.epoch_ms))
        try:
            return cls._parse_fields(fields, None)
        except ValueError as e:
            raise ValueError(str(e).replace(fields, spec)) from e

    @classmethod
    def _parse_fields(cls, spec: str, preset_name: Optional[str]) -> "Layout":
        order: List[Tuple[str, int]] = []
        widths: Dict[str, int] = {}
        tick = 1
        epoch = DEFAULT_EPOCH_MS
        tick_seen = epoch_seen = False
        for raw in spec.split(","):
            part = raw.strip()
            eq = part.find("=")
            if eq <= 0:
                raise ValueError("layout '%s': expected key=value, got '%s'" % (spec, part))
            key = part[:eq].strip().lower()
            value = part[eq + 1:].strip()
            if key == "tick":
                if tick_seen:
                    raise ValueError("layout '%s': tick given twice" % spec)
                tick_seen = True
                tick = _parse_tick(spec, value)
            elif key == "epoch":
                if epoch_seen:
                    raise ValueError("layout '%s': epoch given twice" % spec)
                epoch_seen = True
                epoch = _parse_epoch(spec, value)
            else:
                field = _ALIASES.get(key)
                if field is None:
                    raise ValueError("layout '%s': unknown key '%s'; keys are time, datacenter, "
                                     "worker, shard, sequence, tick, epoch" % (spec, key))
                if field in widths:
                    raise ValueError("layout '%s': field '%s' given twice" % (spec, field))
                if not _JAVA_INT.match(value) or abs(int(value)) > _INT_MAX + 1:
                    raise ValueError("layout '%s': width of '%s' is not a whole number: '%s'"
                                     % (spec, field, value))
                w = int(value)
                if w < 0 or w > 63:
                    raise ValueError("layout '%s': width of '%s' must be 0..63, got %d"
                                     % (spec, field, w))
                widths[field] = w
                order.append((field, w))
        return cls._validated(spec, preset_name, order, widths, tick, epoch)

    @classmethod
    def _validated(cls, spec: str, preset_name: Optional[str], order: List[Tuple[str, int]],
                   widths: Dict[str, int], tick: int, epoch: int) -> "Layout":
        if widths.get("time", 0) == 0:
            raise ValueError("layout '%s': needs a 'time' field of at least 1 bit" % spec)
        if order[0][0] != "time":
            raise ValueError("layout '%s': 'time' must be the first (most significant) field, "
                             "so that IDs sort by time" % spec)
        if "sequence" not in widths:
            raise ValueError("layout '%s': needs a 'sequence' field" % spec)
        total = sum(widths.values())
        if total > 64:
            raise ValueError("layout '%s': fields add up to %d bits; at most 64 fit in an ID (63 "
                             "for IDs that idmint mints, whose sign bit stays 0)" % (spec, total))
        for f in FIELDS:
            if f not in ("time", "sequence") and widths.get(f, 0) > 31:
                raise ValueError("layout '%s': '%s' may be at most 31 bits wide, got %d"
                                 % (spec, f, widths[f]))
        kept = [(f, w) for f, w in order if w > 0 or f == "sequence"]
        layout = cls(preset_name, kept, tick, epoch)
        ticks = (1 << layout._width["time"])
        if ticks > (_LONG_MAX - epoch) // tick:
            raise ValueError("layout '%s': the time field outlasts any representable date; use "
                             "fewer time bits or a shorter tick" % spec)
        if preset_name is None:
            for p in cls.presets():
                if p.spec == layout.spec:
                    return p
        return layout

    @classmethod
    def presets(cls) -> List["Layout"]:
        """The presets, in the order the docs list them."""
        if not cls._presets:
            cls._presets.extend(cls._parse_fields(s, n) for n, s in cls._PRESET_SPECS)
        return list(cls._presets)

    # ---------------------------------------------------------------------------- reading

    @property
    def name(self) -> str:
        """The preset name, or ``"custom"``."""
        return self._name if self._name is not None else "custom"

    @property
    def spec(self) -> str:
        """The canonical spec: every non-empty field from the most significant, tick, epoch."""
        epoch = _dt.datetime.fromtimestamp(self.epoch_ms // 1000, tz=_dt.timezone.utc)
        text = epoch.strftime("%Y-%m-%dT%H:%M:%S")
        if self.epoch_ms % 1000:
            text += ".%03d" % (self.epoch_ms % 1000)
        return "".join("%s=%d," % fw for fw in self._order) + "tick=%s,epoch=%sZ" % (
            _format_tick(self.tick_ms), text)

    @property
    def fields(self) -> Tuple[Tuple[str, int], ...]:
        """``(field, bits)`` of every field, from the most significant down."""
        return self._order

    def bits(self, field: str) -> int:
        """The width of ``field`` (0 when the layout does not have it)."""
        return self._width[_field(field)]

    def shift(self, field: str) -> int:
        """The bit position of the field's least significant bit."""
        return self._shift[_field(field)]

    @property
    def unsigned(self) -> bool:
        """Whether the layout uses all 64 bits, so that its IDs read as unsigned numbers."""
        return self.total_bits == 64

    def get(self, id: int, field: str) -> int:
        """The value of one field of an ID."""
        f = _field(field)
        return (id >> self._shift[f]) & ((1 << self._width[f]) - 1)

    def decode(self, id: int) -> IdParts:
        """Splits an ID into its parts.

        For an :attr:`unsigned` layout (``discord``) the ID may be given as an unsigned 64-bit
        number or as the signed one that carries the same bits.

        :raises ValueError: when the ID is negative or uses bits this layout has not
        """
        if isinstance(id, bool) or not isinstance(id, int):
            raise TypeError("ID must be an int, got %r" % (id,))
        value = id
        if self.unsigned:
            if value < -(1 << 63) or value >= (1 << 64):
                raise ValueError("ID %d does not fit in 64 bits" % id)
            value &= (1 << 64) - 1
        else:
            if value < 0:
                raise ValueError("ID %d is negative; IDs of layout %s are positive"
                                 % (id, self.name))
            if value > _LONG_MAX:
                raise ValueError("ID %d does not fit in 63 bits" % id)
            if self.total_bits < 63 and value >> self.total_bits:
                raise ValueError("ID %d uses more than the %d bits of layout %s"
                                 % (id, self.total_bits, self.name))
        w, s = self._width, self._shift
        tick = (value >> s["time"]) & ((1 << w["time"]) - 1)
        return IdParts(
            id=value,
            timestamp_ms=self.epoch_ms + tick * self.tick_ms,
            datacenter=(value >> s["datacenter"]) & ((1 << w["datacenter"]) - 1),
            worker=(value >> s["worker"]) & ((1 << w["worker"]) - 1),
            shard=(value >> s["shard"]) & ((1 << w["shard"]) - 1),
            sequence=(value >> s["sequence"]) & ((1 << w["sequence"]) - 1),
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Layout) and other.spec == self.spec

    def __hash__(self) -> int:
        return hash(self.spec)

    def __repr__(self) -> str:
        return "Layout(%r)" % (self._name if self._name is not None else self.spec)


def decode(id: Union[int, str], layout: Union[Layout, str] = "snowflake") -> IdParts:
    """Splits ``id`` into its parts under ``layout`` (a :class:`Layout` or a spec).

    ``id`` may be an int or its decimal text.

    :raises ValueError: on a malformed layout spec or an ID the layout cannot hold
    """
    if isinstance(id, str):
        text = id.strip()
        if not re.fullmatch(r"-?[0-9]+", text):
            raise ValueError("ID '%s' is not a decimal number" % id)
        id = int(text)
    return (layout if isinstance(layout, Layout) else Layout.parse(layout)).decode(id)


def _field(name: str) -> str:
    f = _ALIASES.get(name)
    if f is None:
        raise ValueError("unknown field '%s'; fields are %s" % (name, ", ".join(FIELDS)))
    return f


def _format_tick(tick_ms: int) -> str:
    return "%ds" % (tick_ms // 1000) if tick_ms % 1000 == 0 else "%dms" % tick_ms


def _parse_tick(spec: str, value: str) -> int:
    v = value.lower()
    if v.endswith("ms"):
        factor, digits = 1, v[:-2]
    elif v.endswith("s"):
        factor, digits = 1000, v[:-1]
    else:
        raise ValueError("layout '%s': tick '%s' needs a unit, e.g. 1ms, 10ms or 1s"
                         % (spec, value))
    if not _JAVA_INT.match(digits) or abs(int(digits)) > _LONG_MAX + 1:
        raise ValueError("layout '%s': tick '%s' is not a whole number of ms or s"
                         % (spec, value))
    n = int(digits)
    if n < 1 or n > 86_400_000 // factor:
        raise ValueError("layout '%s': tick '%s' must be between 1ms and one day"
                         % (spec, value))
    return n * factor


_ISO_INSTANT = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?"
    r"(Z|[+-]\d{2}:\d{2}(?::\d{2})?)\Z")


def _parse_epoch(spec: str, value: str) -> int:
    bad = ValueError("layout '%s': epoch '%s' is neither Unix milliseconds nor an ISO-8601 "
                     "instant such as 2026-01-01T00:00:00Z" % (spec, value))
    if value and value.isascii() and value.isdigit():
        millis = int(value)
        if millis > _LONG_MAX:
            raise bad
    else:
        m = _ISO_INSTANT.match(value)
        if not m:
            raise bad
        try:
            frac = (m.group(7) or "").ljust(9, "0")
            offset = m.group(8).upper()
            tz = _dt.timezone.utc
            if offset != "Z":
                sign = -1 if offset[0] == "-" else 1
                hh, mm, *ss = offset[1:].split(":")
                tz = _dt.timezone(sign * _dt.timedelta(hours=int(hh), minutes=int(mm),
                                                       seconds=int(ss[0]) if ss else 0))
            when = _dt.datetime(int(m.group(1)), int(m.group(2)), int(m.group(3)),
                                int(m.group(4)), int(m.group(5)), int(m.group(6)),
                                tzinfo=tz)
        except ValueError:
            raise bad from None
        delta = when - _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
        # Whole seconds, plus the fraction's nanoseconds floored to milliseconds.
        millis = (delta.days * 86_400 + delta.seconds) * 1000 + int(frac) // 1_000_000
    if millis < 0:
        raise ValueError("layout '%s': epoch '%s' is before 1970" % (spec, value))
    return millis
