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
