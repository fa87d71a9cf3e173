"""What this node's people wait for from rooms on other nodes: the answers to the messages
forwarded for them, in order, and after Redis came back, the question that tells which of those
were lost (see :meth:`server.cluster.relay.Relay.resubscribed`)."""

from __future__ import annotations

import collections
import secrets
from typing import TypeGuard

from protocol.messages import ClientId

#: how the id of a node's own question to a room begins; a secret of the node's follows (a client
#: chooses its ids freely, and one that looked like the node's would go unanswered), then the
#: question's number
CAUGHT_UP = "cafe:caught-up:"


class Awaited:
    """The answers each connection of this node waits for from rooms elsewhere."""

    def __init__(self) -> None:
        #: sid -> ids of the client messages forwarded for that connection and not answered yet
        #: (in order: answers come back in order, and a line client's messages carry no id)
        self.ids: dict[str, collections.deque[ClientId]] = {}
        #: sid -> the question asked of its room after this node listened again, and how many of
        #: its oldest ids were sent before it
        self.questions: dict[str, tuple[str, int]] = {}
        self._asked = 0
        #: how this node's questions' ids begin, and so their answers' (``ANSWER_START`` before it)
        self.prefix = f"{CAUGHT_UP}{secrets.token_hex(8)}:"

    def sent(self, sid: str, msg_id: ClientId) -> None:
        """A message of ``sid`` went to its room: an answer is due."""
        self.ids.setdefault(sid, collections.deque()).append(msg_id)

    def answered(self, sid: str) -> None:
        """The room answered the oldest message of ``sid`` that waits."""
        waiting = self.ids.get(sid)
        if waiting:
            waiting.popleft()
            if (asked := self.questions.get(sid)) is not None and asked[1] > 0:
                self.questions[sid] = (asked[0], asked[1] - 1)

    def unwait(self, sid: str, msg_id: ClientId) -> None:
        """The message ``msg_id`` of ``sid`` is answered by this node, not by its room (a line
        client's carry no id: any of them is as good)."""
        waiting = self.ids.get(sid)
        if not waiting or msg_id not in waiting:
            return
        index = waiting.index(msg_id)
        del waiting[index]
        if (asked := self.questions.get(sid)) is not None and index < asked[1]:
            self.questions[sid] = (asked[0], asked[1] - 1)

    def ask(self, sid: str) -> str | None:
        """The id of a new question to the room of ``sid``, if anything of it waits."""
        waiting = self.ids.get(sid)
        if not waiting:
            return None
        self._asked += 1
        question = f"{self.prefix}{self._asked}"
        self.questions[sid] = (question, len(waiting))
        return question

    def asked(self, msg_id: ClientId) -> TypeGuard[str]:
        """Whether ``msg_id`` is the id of one of this node's own questions (not a client's)."""
        return isinstance(msg_id, str) and msg_id.startswith(self.prefix)

    def latest(self, sid: str, question: str) -> bool:
        """Whether ``question`` is the one ``sid`` waits for an answer to."""
        asked = self.questions.get(sid)
        return asked is not None and asked[0] == question

    def caught_up(self, sid: str, question: str) -> list[ClientId]:
        """The room answered ``question``: the ids sent before it and still waiting, which never
        will be answered (none for an older question)."""
        if not self.latest(sid, question):
            return []
        _, before = self.questions.pop(sid)
        waiting = self.ids.get(sid) or collections.deque()
        return [waiting.popleft() for _lost in range(min(before, len(waiting)))]

    def drop(self, sid: str) -> collections.deque[ClientId]:
        """Stop waiting for anything of ``sid``: the ids that waited."""
        self.questions.pop(sid, None)
        return self.ids.pop(sid, collections.deque())
