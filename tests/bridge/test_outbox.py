"""The outbox keeps a world's recent durable commands in memory, out of the collector's way."""

import gc

from vttbridge.adapters.base import Command
from vttbridge.adapters.bridge import outbox
from vttbridge.adapters.bridge.outbox import Outbox


async def test_commands_kept_in_memory_are_not_walked_by_the_collector():
    # At a table sent a command each move (the movement budget), a world keeps 1,024: a
    # hundred busy worlds' worth, each tracked, made the collector's passes 40-130 ms.
    box = Outbox("table1", None, None, {}, seq=0, acked_seq=0, keep=1024)
    msgs = [
        outbox.message(seq, Command(op="token.budget", data={"id": "t0", "budget": {"left": seq}}))
        for seq in range(1, 1001)
    ]
    gc.collect()
    gc.disable()  # not even until a pass: a pass comes late when as many go as come
    try:
        before = len(gc.get_objects())
        box.remember(msgs)  # as a node following the world keeps what its owner published
        grown = len(gc.get_objects()) - before
    finally:
        gc.enable()
    assert grown < 50  # not one tracked object a command
    box.published = 1000
    batch = await box.after(998)  # and they are sent as they were made
    assert batch.messages == [
        {"seq": seq, "op": "token.budget", "data": {"id": "t0", "budget": {"left": seq}}}
        for seq in (999, 1000)
    ]
