# What the librdkafka test scripts share: the listener's SASL PLAIN settings and one JSON line per event.
import json
import sys


def sasl_plain(bootstrap, username, password):
    return {
        "bootstrap.servers": bootstrap,
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanisms": "PLAIN",
        "sasl.username": username,
        "sasl.password": password,
    }


def emit(event):
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()


def read_records(consumer, count, describe):
    """Polls until `count` records were read, emitting {"record": describe(message)} for each and
    {"error": ...} for every error event; closes the consumer."""
    read = 0
    try:
        while read < count:
            message = consumer.poll(0.1)
            if message is None:
                continue
            if message.error():
                emit({"error": str(message.error())})
                continue
            read += 1
            emit({"record": describe(message)})
    finally:
        consumer.close()
