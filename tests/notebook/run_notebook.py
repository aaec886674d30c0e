"""Executes a notebook with nbclient and an ipykernel, in place: run_notebook.py NOTEBOOK.ipynb.

Run with the Debian python (/usr/bin/python3: python3-nbclient, python3-ipykernel, python3-numpy;
scripts/setup.sh installs them). The kernel is this same interpreter.
"""

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
client.execute()
nbformat.write(nb, path)
