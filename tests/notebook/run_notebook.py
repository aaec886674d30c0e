"""Executes a notebook with nbclient and an ipykernel, in place: run_notebook.py NOTEBOOK.ipynb.

Run with the Debian python (/usr/bin/python3: python3-nbclient, python3-ipykernel, python3-numpy;
scripts/setup.sh installs them). The kernel is this same interpreter. Its five ports are the first
free ones of ATTN_TEST_PORTS (9100-9199, or one port) when it is set, as for the tests' servers
(tests/ports.js); else the ones jupyter_client picks.
"""

import os
import re
import socket
import sys

import nbformat
from nbclient import NotebookClient

path = sys.argv[1]
nb = nbformat.read(path, as_version=4)
# The kernel runs this interpreter (not whatever "python3" is first on PATH).
nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
client = NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": sys.argv[2] if len(sys.argv) > 2 else "."}})
client.km = client.kernel_manager_class(kernel_name="python3", config=client.config)
client.km.kernel_cmd = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]


def free_test_ports(count):
    """The first `count` ports of ATTN_TEST_PORTS free on 127.0.0.1, or None when it is unset."""
    text = os.environ.get("ATTN_TEST_PORTS", "").strip()
    if not text:
        return None
    m = re.fullmatch(r"(\d{1,5})\s*(?:-\s*(\d{1,5}))?", text)
    first, last = (int(m.group(1)), int(m.group(2) or m.group(1))) if m else (0, -1)
    if not (1 <= first <= last <= 65535):
        sys.exit(f"ATTN_TEST_PORTS must be a port or a range of ports from 1 to 65535, like 9100-9199 (got {text!r})")
    ports = []
    for port in range(first, last + 1):
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue  # in use: the next one
        ports.append(port)
        if len(ports) == count:
            return ports
    sys.exit(f"run_notebook.py: the kernel needs {count} free ports, ATTN_TEST_PORTS={text} has {len(ports)}")


ports = free_test_ports(5)
if ports:
    client.km.ip = "127.0.0.1"
    client.km.cache_ports = False  # else the launcher picks ports of its own
    client.km.shell_port, client.km.iopub_port, client.km.stdin_port, client.km.control_port, client.km.hb_port = ports
client.execute()
nbformat.write(nb, path)
