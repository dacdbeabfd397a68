#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build a minimal Python 3 runtime with the kernel tree's YNL netlink library,
# as a directory tree that vm/mkinitramfs.sh -r merges at the guest's /:
#
#   /usr/bin/python3.11, python3     Debian's interpreter, its libraries
#   /usr/lib/python3.11/             the stdlib modules below and what they
#                                    import (modulefinder), as .pyc only
#   /usr/lib/python3.11/lib-dynload/ the C extensions among them
#   /usr/lib/python3/dist-packages/  PyYAML (pure Python part), ynl.pth
#   /usr/lib/ynl/                    tools/net/ynl/cli.py and lib/ (the
#                                    "from lib import YnlFamily" layout)
#   /usr/bin/ynl                     runs cli.py --no-schema
#   /usr/share/ynl/specs/            nlctrl.yaml and the given SPECs
#
# jsonschema is left out: YNL imports it only to validate a spec against
# genetlink*.yaml, which --no-schema (schema='' in YnlFamily) skips. The
# stdlib stays a plain directory of .pyc: gzipped, that is a little smaller
# than a python311.zip, and it needs no landmark for Python's prefix search.
#
#   [PYTHON=/usr/bin/python3] mkpython.sh OUTDIR LINUX_TREE [SPEC...]
set -euo pipefail

out=$(realpath -m "$1") tree=$(realpath "$2"); shift 2
py=$(readlink -f "${PYTHON:-/usr/bin/python3}")	# Debian's, not one from PATH
ynl=$tree/tools/net/ynl

[ -f "$ynl/cli.py" ] || { echo "mkpython: no $ynl/cli.py (run: make kernel-tree)" >&2; exit 1; }
"$py" -c 'import yaml' 2>/dev/null ||
	{ echo "mkpython: $py has no yaml (install python3-yaml)" >&2; exit 1; }

# What cli.py and lib/ import, and ROOTS for the test scripts: everything
# these import (modulefinder, so lazy imports too) comes along, except the
# big optional packages in EXCLUDE; a script needing one of those fails with
# ImportError. The C extensions of PyYAML and _hashlib (OpenSSL) are left
# out: YNL uses yaml.safe_load, the pure-Python loader, and hashlib falls
# back to its built-in hashes.
ROOTS="argparse array base64 binascii bisect collections contextlib copy
ctypes dataclasses datetime enum errno fcntl fnmatch functools glob grp
hashlib heapq importlib.util io ipaddress itertools json logging math mmap
os pathlib pkgutil platform pprint pwd queue random re resource runpy select
selectors shlex shutil signal socket string struct subprocess tempfile
termios textwrap threading time traceback typing uuid yaml"
EXCLUDE="asyncio bdb bz2 calendar cmd code codeop concurrent csv decimal
difflib distutils doctest email fractions ftplib getpass gzip hmac html http
importlib.metadata importlib.resources lib2to3 lzma mimetypes multiprocessing
netrc pdb pickle plistlib py_compile pydoc pydoc_data readline secrets
socketserver ssl statistics sysconfig tarfile test tkinter tty unittest
urllib.request urllib.robotparser webbrowser xml xmlrpc zipfile _aix_support
_compat_pickle _hashlib _osx_support _pydecimal _ssl _yaml yaml._yaml
yaml.cyaml"

rm -rf "$out"
mkdir -p "$out/usr/bin" "$out/usr/lib/ynl/lib" "$out/usr/share/ynl/specs"
cp "$py" "$out/usr/bin/"
ln -s "$(basename "$py")" "$out/usr/bin/python3"

# Modules: compile to sourceless .pyc at the paths the guest imports from,
# copy C extensions; print the extensions for ldd.
exts=$("$py" -I - "$out" "$ynl" "$ROOTS" "$EXCLUDE" <<'EOF'
import modulefinder, os, py_compile, shutil, sys, sysconfig

out, ynl, roots, exclude = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4].split()
stdlib = sysconfig.get_path("stdlib")
dynload = os.path.join(stdlib, "lib-dynload")
import yaml
site = os.path.dirname(os.path.dirname(yaml.__file__))

# All codecs but the CJK ones (a megabyte of C extensions).
enc = os.path.join(stdlib, "encodings")
roots += ["encodings." + f[:-3] for f in os.listdir(enc) if f.endswith(".py")
          and "_multibytecodec" not in open(os.path.join(enc, f)).read()]
script = os.path.join(out, ".roots.py")
with open(script, "w") as f:
    f.write("".join(f"import {r}\n" for r in roots) + "import cli\n")
mf = modulefinder.ModuleFinder(path=[ynl, stdlib, dynload, site], excludes=exclude)
mf.run_script(script)
os.unlink(script)

for name, mod in sorted(mf.modules.items()):
    src = mod.__file__
    if not src or src.startswith(ynl + "/"):
        continue
    if src.endswith(".so"):
        dst = out + src
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy(src, dst)
        print(src)
    elif src.endswith(".py") and (src.startswith(stdlib + "/") or src.startswith(site + "/")):
        py_compile.compile(src, cfile=out + src + "c", dfile=src, doraise=True)
EOF
)

# Shared libraries of the interpreter and the extensions, as mkinitramfs does.
for lib in $( { ldd "$py"; for e in $exts; do ldd "$e"; done; } |
	      grep -o '/[^ ]*' | sort -u); do
	mkdir -p "$out$(dirname "$lib")"
	cp -L "$lib" "$out$lib"
done

# YNL: sources plus hash-checked .pyc, so that nothing compiles at import.
cp "$ynl/cli.py" "$out/usr/lib/ynl/"
cp "$ynl"/lib/*.py "$out/usr/lib/ynl/lib/"
"$py" -I -S -m compileall -q -d /usr/lib/ynl --invalidation-mode checked-hash \
	"$out/usr/lib/ynl/lib" >/dev/null
site=$("$py" -I -c 'import os, yaml; print(os.path.dirname(os.path.dirname(yaml.__file__)))')
echo /usr/lib/ynl >"$out$site/ynl.pth"
cat >"$out/usr/bin/ynl" <<'EOF'
#!/bin/sh
# The kernel tree's YNL CLI; no jsonschema here, so specs are not validated.
exec /usr/bin/python3 /usr/lib/ynl/cli.py --no-schema "$@"
EOF
chmod 755 "$out/usr/bin/ynl"
cp "$tree/Documentation/netlink/specs/nlctrl.yaml" "$@" "$out/usr/share/ynl/specs/"

# Every root imports from the new tree alone (with the host's libraries).
(cd / && env -i PYTHONHOME="$out/usr" PYTHONPATH="$out/usr/lib/ynl" \
	"$out/usr/bin/python3" -c "import $(echo "$ROOTS" | tr -s ' \n' ,)lib")

echo "mkpython: $(find "$out" -name '*.pyc' | wc -l) modules, $(du -sh "$out" | cut -f1) in $out" >&2
