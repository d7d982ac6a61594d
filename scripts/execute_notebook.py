#!/usr/bin/python3
"""Execute one notebook with nbclient and export a self-contained HTML report.

Called by lib/jupyter/execute.ts (run with /usr/bin/python3 or $DBLAB_PYTHON). Prints JSON lines
on stdout:
  {"event":"kernel","pid":..,"seconds":..}              kernel ready
  {"event":"cell","index":i,"count":n,"phase":"start"|"end","cell":k}
                                                         i = code-cell ordinal, k = notebook index
  {"event":"error","cell":k,"index":i,"ename":..,"evalue":..,"source_head":..}
  {"event":"interrupted","signal":n}  {"event":"report_error"|"fatal","message":..}
  {"event":"saved","ipynb":..,"html":..}
Exit status: 0 ok, 1 a cell failed, 3 setup error, 128+signal when stopped by a signal.
The executed notebook is saved even when a cell fails, so the report shows the error.
"""
import argparse
import asyncio
import copy
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import threading
import time

import nbformat
from jinja2 import DictLoader
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
from nbconvert import HTMLExporter
from traitlets.config import Config

# The lab template without require.js and MathJax (a CDN or machine-local paths): the report opens
# offline. One file, shared with the Notebook UI's Download as HTML (scripts/lab.ts).
_TEMPLATE_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "report-template", "dblab-report.html.j2")
with open(_TEMPLATE_FILE, encoding="utf-8") as _f:
    REPORT_TEMPLATE = _f.read()


def emit(**event):
    try:
        sys.stdout.write(json.dumps(event) + "\n")
        sys.stdout.flush()
    except (BrokenPipeError, ValueError):  # our parent is gone: carry on cleaning up
        sys.stdout = open(os.devnull, "w")


def first_line(source):
    for line in source.splitlines():
        if line.strip():
            return line.strip()[:200]
    return ""


JS_ERROR = re.compile(r"^([A-Za-z_$][\w$]*(?:Error|Exception)|Error)(?: \[[\w-]+\])?: (.*)$", re.M)
TS_DIAGNOSTIC = re.compile(r"^\d+:\d+ - .*$", re.M)


def clip(text, limit=2000):
    """The lab's errors name the fault, the server, the trials kept and the resume in one line
    (a lost remote engine's ran to 640 characters, and 500 cut its resume advice mid-word): keep
    them whole; only a runaway text (a compiler's list) is cut, visibly."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def describe_error(cell, ename, evalue):
    """tslab replies ename "Error" with an empty evalue and writes the error to stderr: read it."""
    if evalue:
        return ename, evalue
    stderr = [o.get("text", "") for o in cell.get("outputs", [])
              if o.get("output_type") == "stream" and o.get("name") == "stderr"]
    stderr += ["\n".join(o.get("traceback", [])) for o in cell.get("outputs", []) if o.get("output_type") == "error"]
    diagnostics = [m.group(0) for text in stderr for m in TS_DIAGNOSTIC.finditer(text)]
    if diagnostics:
        return "CompileError", clip("; ".join(diagnostics))
    if stderr:
        m = JS_ERROR.search(stderr[-1])
        if m:
            return m.group(1), clip(m.group(2))
        return ename, first_line(stderr[-1])
    return ename, evalue


def stop_kernel(pid, grace):
    """Waits up to `grace` s for a signalled kernel to exit, then SIGKILLs its process group."""
    if not pid:
        return
    deadline = time.monotonic() + grace
    while True:
        try:
            os.kill(pid, 0)
        except OSError:
            return
        if time.monotonic() >= deadline:
            break
        time.sleep(0.1)
    try:
        os.killpg(pid, signal.SIGKILL)  # the kernel leads its own session (start_new_session)
    except OSError:
        pass


def export_html(nb, path, hide_code):
    # The injected cell echoes the overrides object (tslab shows the last expression): drop that.
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        if "injected-parameters" in cell.metadata.get("tags", []):
            cell.outputs = []
    exporter = HTMLExporter(
        template_name="lab",
        extra_loaders=[DictLoader({"dblab-report.html.j2": REPORT_TEMPLATE})],
        template_file="dblab-report.html.j2",
        embed_images=True,
        exclude_input=hide_code,
        exclude_input_prompt=hide_code,
        exclude_output_prompt=hide_code,
    )
    body, _ = exporter.from_notebook_node(nb)
    with open(path, "w", encoding="utf-8") as f:
        f.write(body)


async def run(args):
    nb = nbformat.read(args.notebook, as_version=4)
    code_cells = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    ordinal = {cell_index: n for n, cell_index in enumerate(code_cells)}
    count = len(code_cells)
    state = {"current": None, "error": None, "signal": None, "t0": time.monotonic()}

    # The kernel's channels are Unix sockets in a folder of our own, not TCP ports: a port Jupyter
    # picked can be taken by any process's outgoing connection before the kernel binds it (a loaded
    # machine churns thousands), and the kernel then never answered (kernel-preload.ts).
    sockets = args.sockets or tempfile.mkdtemp(prefix="dblab-kernel-")
    # Its connection file (with the messages' signing key) beside them: one folder to remove.
    kernel = {"transport": "ipc", "ip": os.path.join(sockets, "k"), "connection_file": os.path.join(sockets, "kernel.json")}
    config = Config({"KernelManager": kernel})
    client = NotebookClient(
        nb,
        kernel_name=args.kernel,
        timeout=args.timeout if args.timeout > 0 else None,
        startup_timeout=args.startup_timeout,
        resources={"metadata": {"path": args.cwd}},
        config=config,
    )

    def kernel_pid():
        return getattr(getattr(client.km, "provisioner", None), "pid", None)

    def on_signal(signum):
        # SIGTERM to the kernel alone: its shutdown hooks release the servers it started (the
        # lab's reaper). The running cell then ends with DeadKernelError; no further cell starts.
        if state["signal"] is None:
            state["signal"] = signum
            emit(event="interrupted", signal=signum)
            if client.km is not None:
                client.km.shutdown_wait_time = args.stop_grace
            pid = kernel_pid()
            if pid:
                try:
                    os.kill(pid, signal.SIGTERM)
                except OSError:
                    pass
                asyncio.get_running_loop().call_later(args.stop_grace, stop_kernel, pid, 0)

    def on_notebook_start(notebook):
        provisioner = getattr(client.km, "provisioner", None)
        emit(event="kernel", pid=getattr(provisioner, "pid", None),
             seconds=round(time.monotonic() - state["t0"], 3))
        # Replace nbclient's handlers (which shut the kernel down gracefully while execution
        # goes on) with ours: kill the kernel at once, so the running cell ends now.
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, on_signal, sig)

    def on_cell_start(cell, cell_index):
        if state["signal"] is not None:
            raise RuntimeError("stopped by a signal")
        if cell.cell_type == "code":
            state["current"] = cell_index
            emit(event="cell", index=ordinal[cell_index], count=count, phase="start", cell=cell_index)

    def on_cell_executed(cell, cell_index, execute_reply):
        emit(event="cell", index=ordinal[cell_index], count=count, phase="end", cell=cell_index)

    def on_cell_error(cell, cell_index, execute_reply):
        content = execute_reply.get("content", {})
        state["error"] = (cell_index, content.get("ename", "Error"), content.get("evalue", ""))

    client.on_notebook_start = on_notebook_start
    client.on_cell_start = on_cell_start
    client.on_cell_executed = on_cell_executed
    client.on_cell_error = on_cell_error

    # If our parent dies without signalling us (kill -9), stop as if signalled.
    parent = os.getppid()

    def watch_parent():
        while os.getppid() == parent:
            time.sleep(1)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch_parent, daemon=True).start()

    status = 0
    try:
        await client.async_execute(cwd=args.cwd)
    except (CellExecutionError, CellTimeoutError, DeadKernelError, RuntimeError, TimeoutError) as e:
        status = 1
        if state["error"] is not None:
            cell_index, ename, evalue = state["error"]
        else:
            cell_index = state["current"]
            ename = "Interrupted" if state["signal"] else type(e).__name__
            if state["signal"]:
                evalue = f"stopped by signal {state['signal']}"
            elif isinstance(e, CellTimeoutError):
                evalue = f"the cell did not finish within {args.timeout} s (per-cell timeout)"
            elif isinstance(e, DeadKernelError):
                evalue = "the kernel died (see the .log beside the notebook)"
            else:
                evalue = str(e).strip().splitlines()[-1] if str(e).strip() else ""
        source = nb.cells[cell_index].source if cell_index is not None else ""
        if state["error"] is not None:
            ename, evalue = describe_error(nb.cells[cell_index], ename, evalue)
        emit(event="error", cell=cell_index, index=ordinal.get(cell_index), count=count,
             ename=ename, evalue=evalue, source_head=first_line(source))
    finally:
        if state["signal"] is not None:
            stop_kernel(kernel_pid(), args.stop_grace)
        shutil.rmtree(sockets, ignore_errors=True)
        nbformat.write(nb, args.output)
        if args.html:
            try:
                export_html(nb, args.html, args.hide_code)
            except Exception as e:  # the notebook itself is saved; say why the report is missing
                emit(event="report_error", message=f"{type(e).__name__}: {e}")
                status = status or 1
        emit(event="saved", ipynb=args.output, html=args.html or None)
    if state["signal"]:
        return 128 + state["signal"]
    return status


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("notebook", help="the notebook to run (parameters already injected)")
    ap.add_argument("--output", required=True, help="where to write the executed .ipynb")
    ap.add_argument("--html", help="where to write the HTML report")
    ap.add_argument("--hide-code", action="store_true", help="leave code cells' input out of the report")
    ap.add_argument("--cwd", help="the kernel's working folder (default: the notebook's folder)")
    ap.add_argument("--kernel", default="db-write-lab")
    ap.add_argument("--timeout", type=int, default=3600, help="per-cell timeout, seconds (0: none)")
    ap.add_argument("--startup-timeout", type=int, default=120)
    ap.add_argument("--sockets", help="an empty folder for the kernel's Unix sockets (default: a new one under TMPDIR)")
    ap.add_argument("--stop-grace", type=int, default=30,
                    help="seconds a signalled kernel gets to release its servers before SIGKILL")
    args = ap.parse_args()
    args.cwd = os.path.abspath(args.cwd or os.path.dirname(os.path.abspath(args.notebook)))
    try:
        return asyncio.run(run(args))
    except KeyboardInterrupt:
        return 130
    except Exception as e:
        emit(event="fatal", message=f"{type(e).__name__}: {e}")
        return 3


if __name__ == "__main__":
    sys.exit(main())
