# The librdkafka side of the Kafka bench (bench/kafka-bench.ts), with python3-confluent-kafka.
# Each mode times itself and prints one JSON line: {"seconds": …, …}. keyId "-": plaintext, no SASL.
#   consume bootstrap keyId secret topic partitions
#       a cold start: the partitions' high watermarks, then every partition assigned from offset 0
#       and read to its watermark into a dict (a tombstone deletes its key); timed from the
#       consumer's creation.
#   produce bootstrap keyId secret topic batches recordsPerBatch valueBytes
#       acks=all, batches of recordsPerBatch records to partition 0; timed from the first produce
#       to the last delivery report, after one record sent and acknowledged (connection and login).
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "test"))
from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition  # noqa: E402
from librdkafka_common import emit, sasl_plain  # noqa: E402


def connection(bootstrap, username, password):
    # "-" as the user: the bench's floor broker, plaintext without SASL.
    if username == "-":
        return {"bootstrap.servers": bootstrap}
    return sasl_plain(bootstrap, username, password)


def consume(bootstrap, username, password, topic, partitions):
    started = time.perf_counter()
    consumer = Consumer({
        **connection(bootstrap, username, password),
        "group.id": f"bench-{os.getpid()}",
        "enable.auto.commit": False,
    })
    # The ends first (ListOffsets), as kafkajs's side does: partition EOF would only come after a
    # fetch at the end had waited out fetch.wait.max.ms.
    ends = {}
    for p in range(partitions):
        high = consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=30)[1]
        if high > 0:
            ends[p] = high - 1
    consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(partitions)])
    state = {}
    records = 0
    while ends:
        for message in consumer.consume(num_messages=10000, timeout=0.02):
            error = message.error()
            if error is not None:
                raise RuntimeError(str(error))
            records += 1
            value = message.value()
            if value is None:
                state.pop(message.key(), None)
            else:
                state[message.key()] = value
            if message.offset() >= ends.get(message.partition(), float("inf")):
                del ends[message.partition()]
    seconds = time.perf_counter() - started
    consumer.close()
    emit({"seconds": seconds, "records": records, "keys": len(state)})


def produce(bootstrap, username, password, topic, batches, per_batch, value_bytes):
    producer = Producer({
        **connection(bootstrap, username, password),
        "acks": "all",
        # One batch a bench batch: librdkafka closes a batch at this count, or at linger.ms.
        "batch.num.messages": per_batch,
        "batch.size": 4 << 20,
        "linger.ms": 50,
    })
    failures = []

    def delivered(error, _message):
        if error is not None:
            failures.append(str(error))

    producer.produce(topic, key=b"warm-up", value=b"x", partition=0, on_delivery=delivered)
    producer.flush(30)
    value = b"v" * value_bytes
    keys = [f"key-{n}".encode() for n in range(batches * per_batch)]
    started = time.perf_counter()
    for n, key in enumerate(keys):
        producer.produce(topic, key=key, value=value, partition=0, on_delivery=delivered)
        if n % 1000 == 0:
            producer.poll(0)
    left = producer.flush(120)
    seconds = time.perf_counter() - started
    if left or failures:
        raise RuntimeError(f"{left} unacknowledged, failures: {failures[:3]}")
    emit({"seconds": seconds, "records": len(keys)})


mode, args = sys.argv[1], sys.argv[2:]
if mode == "consume":
    consume(*args[:4], int(args[4]))
elif mode == "produce":
    produce(*args[:4], int(args[4]), int(args[5]), int(args[6]))
else:
    raise SystemExit(f"unknown mode {mode}")
