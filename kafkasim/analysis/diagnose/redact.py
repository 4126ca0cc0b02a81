"""`--redact`: host names, IP addresses, client, member and instance ids replaced, the same way
everywhere in one report (a member is `member-3` on the screen, in the JSON and in the page), so
a report can be shared without naming the machines or applications it came from."""

from __future__ import annotations

import re

from kafkasim.analysis.diagnose.timeline import MEMBER, REASON, client_of

_IPV4 = re.compile(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?![\d.])")
_IPV6 = re.compile(r"(?<![\w:.])[0-9a-fA-F]{0,4}(?::[0-9a-fA-F]{0,4}){2,7}(?![\w:])")
_CLIENT = re.compile(r"clientId=([^\s,;()]+)")
# Where Kafka's coordinator lines name hosts and instance ids (MemberMetadata.toString, GroupCoordinator
# reasons "with group instance id X", GroupMetadataManager.java "with instance id X").
_HOST = re.compile(r"(?:clientHost=/?|host=|[Hh]ost )([A-Za-z0-9_.-]+)")
_INSTANCE = re.compile(r"(?:group instance ?id |groupInstanceId=Some\(|groupInstanceId=|instance id |"
                       r"group\.instance\.id )([^\s,;()\]]+)")


class Redactor:
    """Replaces the names it was shown, longest first, by stable placeholders."""

    def __init__(self):
        self.names: dict[str, str] = {}
        self._counts: dict[str, int] = {}
        self._pattern = None

    def add(self, value: str | None, kind: str) -> None:
        if not value or value in self.names or value in ("None", "null") or len(value) < 2:
            return
        self._counts[kind] = self._counts.get(kind, 0) + 1
        self.names[value] = f"{kind}-{self._counts[kind]}"
        self._pattern = None

    def learn(self, rows: list) -> "Redactor":
        """Every member and client id of the rows, and the hosts, IPs and instance ids their texts name."""
        return self.learn_pairs((r[MEMBER], r[REASON]) for r in rows)

    def learn_pairs(self, pairs) -> "Redactor":
        """The same from (member, reason) pairs in the rows' order (`--spark` streams only these)."""
        for member, reason in pairs:
            self.add(member, "member")
            if member and client_of(member) != member:
                self.add(client_of(member), "client")
            self.scan(reason or "")
        return self

    def scan(self, text: str) -> None:
        for m in _INSTANCE.finditer(text):
            self.add(m.group(1), "instance")
        for m in _HOST.finditer(text):
            if not _IPV4.fullmatch(m.group(1)):
                self.add(m.group(1), "host")
        for m in _CLIENT.finditer(text):
            self.add(m.group(1), "client")
        for m in _IPV4.finditer(text):
            self.add(m.group(0), "ip")
        for m in _IPV6.finditer(text):  # not a time of day: a "::" or all eight groups
            if "::" in m.group(0) or m.group(0).count(":") == 7:
                self.add(m.group(0), "ip")

    def __call__(self, text: str) -> str:
        self.scan(text)
        if not self.names:
            return text
        if self._pattern is None:
            keys = sorted(self.names, key=len, reverse=True)
            self._pattern = re.compile("|".join(re.escape(k) for k in keys))
        return self._pattern.sub(lambda m: self.names[m.group(0)], text)
