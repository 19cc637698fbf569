# A consume-transform-produce loop with exactly-once semantics (confluent_kafka, librdkafka 2.0.2):
# reads `source` in group `group` (read_committed), writes "out-<value>" under the same key to
# `sink` in transactions that carry the consumed offsets, until the group's committed offsets reach
# `total` records over all of source's partitions. An abortable error (a partition owner or the
# coordinator died mid-transaction) aborts the transaction and rewinds to the committed offsets.
# argv: bootstrap keyId secret source sink group total. Prints {"commits": n, "aborts": n} at the end.
import sys

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from librdkafka_common import emit, sasl_plain

bootstrap, username, password, source, sink, group, total = sys.argv[1:8]
total = int(total)
conf = sasl_plain(bootstrap, username, password)
consumer = Consumer({
    **conf,
    "group.id": group,
    "enable.auto.commit": False,
    "auto.offset.reset": "earliest",
    "isolation.level": "read_committed",
})
producer = Producer({
    **conf,
    "transactional.id": f"{group}-pipeline",
    "transaction.timeout.ms": 30000,
    "message.timeout.ms": 30000,
})
producer.init_transactions(60)
consumer.subscribe([source])
commits = aborts = 0


def committed_total():
    parts = consumer.assignment()
    if not parts:
        return 0
    return sum(max(tp.offset, 0) for tp in consumer.committed(parts, 10))


def rewind():
    parts = consumer.assignment()
    for tp in consumer.committed(parts, 10):
        consumer.seek(TopicPartition(tp.topic, tp.partition, max(tp.offset, 0)))


while True:
    messages = consumer.consume(50, 0.5)
    messages = [m for m in messages if not m.error()]
    if not messages:
        if committed_total() >= total:
            break
        continue
    try:
        producer.begin_transaction()
        for m in messages:
            producer.produce(sink, key=m.key(), value=b"out-" + m.value())
        producer.send_offsets_to_transaction(
            consumer.position(consumer.assignment()), consumer.consumer_group_metadata(), 60)
        producer.commit_transaction(60)
        commits += 1
    except KafkaException as e:
        error = e.args[0]
        if error.fatal():
            emit({"fatal": str(error)})
            sys.exit(1)
        if error.txn_requires_abort():
            producer.abort_transaction(60)
        elif error.retriable():
            try:
                producer.commit_transaction(60)
                commits += 1
                continue
            except KafkaException:
                producer.abort_transaction(60)
        else:
            producer.abort_transaction(60)
        aborts += 1
        rewind()
consumer.close()
emit({"commits": commits, "aborts": aborts})
