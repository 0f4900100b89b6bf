#!/usr/bin/env python3
"""The remote cache at every job size (docs/caching-and-ci.md): nginx with WebDAV on loopback as
the cache, and two workloads — 20,000 generated 32×32 sprites (color-key + premultiply, the CI at
scale set) and 200 512² textures through Kaiser mip chains. For each, whole process on this
machine's cores:

- local cold run: fresh output root and local cache, no remote;
- cold run uploading: the same with an empty remote cache in read-write mode;
- served by the cache: fresh output root and local cache, everything in the remote cache.

Targets: served by the cache ≤ 0.5× the local cold run, uploading ≤ 1.5× it, measured side by
side in one run. Several binaries may be given; each gets its own server contents.

Beside them, the floor (Benchmarks/images/floor/hit_floor.c): the least any cache hit must do — read
each input (its key covers the bytes) and write each output atomically, in C, two threads, no
hashing, no HTTP, no server — for the sprites, with outputs of the local run's mean size. No
client can serve the jobs from a cache faster than that.

    Benchmarks/runs/remote.py [BINARY...]      # default .build/release/texpipe
"""
import os, shutil, socket, subprocess, sys, tempfile, time

sys.path[:0] = [os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), g) for g in ("images", "encoders", "runs", "gates")]
import scale  # noqa: E402  (the sprite generator)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WORK = os.path.join(ROOT, ".build-bench", "remote")
BINARIES = [os.path.abspath(b) for b in sys.argv[1:]] or [os.path.join(ROOT, ".build/release/texpipe")]
NGINX = next(p for p in ("/usr/sbin/nginx", "/usr/bin/nginx") if os.path.exists(p))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Server:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="texpipe-remote-bench-")
        os.makedirs(os.path.join(self.dir, "root", "cache"))
        os.makedirs(os.path.join(self.dir, "tmp"))
        self.port = free_port()
        user = "user root root;" if os.geteuid() == 0 else ""
        conf = f"""
daemon off; master_process off; {user}
error_log {self.dir}/error.log; pid {self.dir}/nginx.pid;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  client_body_temp_path {self.dir}/tmp/body; proxy_temp_path {self.dir}/tmp/proxy;
  fastcgi_temp_path {self.dir}/tmp/fastcgi; uwsgi_temp_path {self.dir}/tmp/uwsgi; scgi_temp_path {self.dir}/tmp/scgi;
  client_max_body_size 0; keepalive_requests 1000000;
  server {{
    listen 127.0.0.1:{self.port};
    root {self.dir}/root;
    location /cache/ {{ dav_methods PUT DELETE; create_full_put_path on; }}
  }}
}}"""
        with open(os.path.join(self.dir, "nginx.conf"), "w") as f:
            f.write(conf)
        self.process = subprocess.Popen([NGINX, "-p", self.dir, "-c", self.dir + "/nginx.conf", "-e",
                                         self.dir + "/error.log"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.1).close()
                break
            except OSError:
                time.sleep(0.05)
        self.url = f"http://127.0.0.1:{self.port}/cache"

    def stop(self):
        self.process.kill()
        self.process.wait()


def textures():
    """200 512² RGBA textures (smooth gradients and noise, so the PNGs are of a real size)."""
    folder = os.path.join(WORK, "textures")
    marker = os.path.join(folder, ".complete")
    if os.path.exists(marker):
        return
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    import random
    for i in range(200):
        rnd = random.Random(i)
        rows = []
        for y in range(512):
            row = bytearray()
            for x in range(0, 512):
                n = rnd.randrange(16)
                row += bytes(((x + i * 7) % 256, (y * 3 + i) % 256, ((x ^ y) + n) % 256, 255))
            rows.append(bytes(row))
        with open(os.path.join(folder, f"t{i:03d}.png"), "wb") as f:
            f.write(scale.png(512, 512, rows))
    open(marker, "w").close()


WORKLOADS = {
    "20,000 sprites 32×32": ('"inputs": ["../scale/sprites/**/*.png"], "output": "{path}/{file}.png", "stages": '
                             '[{"stage": "color-key", "color": "rgb(0,128,0)", "region": "edges"}, '
                             '{"stage": "premultiply"}]'),
    "200 textures 512², Kaiser chains": ('"inputs": ["textures/*.png"], "output": "{file}{suffix}.png", "stages": '
                                         '[{"stage": "mipmaps", "filter": "kaiser", "layout": "files"}]'),
}


def floor(local_outputs):
    """Seconds of hit_floor over the sprites, inputs in the order texpipe's workers take them
    (output folders in turn), outputs of the local run's mean size."""
    binary = os.path.join(WORK, "hit_floor")
    subprocess.run(["cc", "-O2", "-pthread", os.path.join(ROOT, "Benchmarks/images/floor/hit_floor.c"), "-o", binary],
                   check=True)
    by_folder = {}
    for folder, _, files in sorted(os.walk(os.path.join(scale.WORK, "sprites"))):
        for f in sorted(files):
            if f.endswith(".png"):
                by_folder.setdefault(folder, []).append(os.path.join(folder, f))
    order = [fs[k] for k in range(max(map(len, by_folder.values()))) for fs in by_folder.values() if k < len(fs)]
    sizes = [os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(local_outputs) for f in fs]
    out = os.path.join(WORK, f"trash-{time.time_ns()}")
    t = time.perf_counter()
    subprocess.run([binary, str(os.cpu_count()), out, str(sum(sizes) // max(1, len(sizes)))] + order, check=True)
    return time.perf_counter() - t


def run(binary, workload, extra):
    """One whole run into a fresh output root and local cache; seconds."""
    for name in ("out", ".texpipe"):
        if os.path.exists(os.path.join(WORK, name)):  # moved aside, not deleted: see scale.fresh
            os.rename(os.path.join(WORK, name), os.path.join(WORK, f"trash-{time.time_ns()}"))
    with open(os.path.join(WORK, "pipeline.json"), "w") as f:
        f.write('{"version": 1, "output": "out", "pipelines": [{"name": "w", %s}]}' % WORKLOADS[workload])
    t = time.perf_counter()
    p = subprocess.run([binary, "run", "--quiet", "--no-progress"] + extra, cwd=WORK, capture_output=True, text=True)
    seconds = time.perf_counter() - t
    if p.returncode != 0 or "warning" in p.stderr:
        raise RuntimeError(p.stderr[-2000:])
    return seconds


def main():
    os.makedirs(WORK, exist_ok=True)
    scale.WORK = os.path.join(ROOT, ".build-bench", "scale")
    os.makedirs(scale.WORK, exist_ok=True)
    scale.generate()
    textures()
    # A fresh server (and folder) per binary and workload: clearing one and filling it again right
    # away meets ext4's search of recently freed inodes (see scale.fresh), which is the file
    # system's time, not the cache's. The folders are removed at the end.
    servers = []
    try:
        print(f"nginx on loopback, {os.cpu_count()} cores, whole process, seconds (one run each)\n")
        print("| workload | binary | local cold | uploading | × local | served by the cache | × local | floor × local |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- |")
        for workload in WORKLOADS:
            for binary in BINARIES:
                name = os.path.relpath(binary, ROOT) if binary.startswith(ROOT) else binary
                server = Server()
                servers.append(server)
                local = run(binary, workload, [])
                least = f"{floor(os.path.join(WORK, 'out')) / local:.2f}" if "sprites" in workload else "—"
                upload = run(binary, workload, ["--remote-cache", server.url])
                served = run(binary, workload, ["--remote-cache", server.url])
                server.stop()
                print(f"| {workload} | {name} | {local:.2f} | {upload:.2f} | {upload / local:.2f} | {served:.2f} | "
                      f"{served / local:.2f} | {least} |", flush=True)
    finally:
        for server in servers:
            server.stop()
            shutil.rmtree(server.dir, ignore_errors=True)
        for name in os.listdir(WORK):
            if name.startswith("trash-"):
                shutil.rmtree(os.path.join(WORK, name), ignore_errors=True)


if __name__ == "__main__":
    main()
