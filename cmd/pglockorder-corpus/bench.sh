#!/usr/bin/env bash
# bench.sh compares pglockorder with go vet (its default analyzers) on
# synthetic corpora of growing size, in one run, and prints the ratios.
#
#   bash cmd/pglockorder-corpus/bench.sh                      # three sizes
#   SIZES="small:100:40" REPS=5 bash cmd/pglockorder-corpus/bench.sh
#
# SIZES lists name:packages:functions-per-package. For each size it times,
# with both tools run back to back on the same packages:
#   cold    empty build cache (both compile the standard library and pgx)
#   warm    dependencies compiled and analysed, every corpus package changed
#           (the cache was filled on the same layout generated with another
#           seed): what a pre-merge check on a busy monorepo pays
#   cached  nothing changed since the last run: go vet replays its cached
#           results, pglockorder replays its own (result cache)
#   edited  one package changed since the last run (a function appended to
#           the first domain's repository package): go vet re-runs that
#           package and its importers
# Wall time, CPU time (user + system, of the tool and the processes it
# waits for: on a shared machine the steadier measure) and peak RSS come
# from /usr/bin/time (GNU time; Debian package "time"); the RSS is that of
# the largest single process (go vet runs one
# vet process per package, pglockorder one process plus go list). Each
# figure is the median of REPS runs (COLD_REPS for cold). It checks that
# pglockorder reports exactly the planted inversions. With FACTS=1 it also
# prints the size of the package facts of pglockorder's go vet mode.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
SIZES=${SIZES:-"small:100:40 medium:300:60 large:800:90"}
REPS=${REPS:-3}
COLD_REPS=${COLD_REPS:-1}
PLANTED=${PLANTED:-4}
work=${WORK:-$(mktemp -d /tmp/pglockorder-bench.XXXXXX)}
mkdir -p "$work"

if [ ! -x /usr/bin/time ]; then
	echo "bench.sh needs GNU time at /usr/bin/time (apt-get install time)" >&2
	exit 1
fi

echo "# $(date -u +%FT%TZ) $(go version) on $(nproc) cores, $(uname -m); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
(cd "$root/testdata/corpus" && go mod download)
go build -o "$work/pglockorder" "$root/cmd/pglockorder"
go build -o "$work/gen" "$root/cmd/pglockorder-corpus"

# timed LABEL CMD...: runs CMD in the corpus, appends "LABEL secs KB cpu"
# to $work/times and leaves its stdout in $work/out.
timed() {
	local label=$1
	shift
	local rc=0
	(cd "$dir" && /usr/bin/time -f "%e %M %U %S" -o "$work/t" "$@" >"$work/out" 2>"$work/err") || rc=$?
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
		echo "$label: exit status $rc" >&2
		cat "$work/err" >&2
		exit 1
	fi
	echo "$label $(tail -n1 "$work/t" | awk '{ printf "%s %s %.2f", $1, $2, $3 + $4 }')" >>"$work/times"
}

# check verifies that the last pglockorder run found the planted inversions.
check() {
	local n
	n=$(grep -c '^[^ ].*: lock-order inversion: ' "$work/out" || true)
	if [ "$n" -ne "$PLANTED" ]; then
		echo "pglockorder reported $n lock-order inversions, $PLANTED were planted" >&2
		head -50 "$work/out" >&2
		exit 1
	fi
}

# median LABEL FIELD prints the median of a column of $work/times.
median() {
	awk -v l="$1" -v f="$2" '$1 == l { print $f }' "$work/times" | sort -n |
		awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# ratio RUN FIELD prints the median of the ratios pglockorder/go vet of
# the runs made back to back, steadier than a ratio of medians when other
# work shares the machine.
ratio() {
	awk -v v="$1-vet" -v p="$1-pgl" -v f="$2" '
		$1 == v { a[++n] = $f } $1 == p { b[++m] = $f }
		END { for (i = 1; i <= n && i <= m; i++) if (a[i] > 0) print b[i] / a[i] }' "$work/times" | sort -n |
		awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) printf "%.2fx\n", v[(NR + 1) / 2]; else printf "%.2fx\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# pglockorder's result cache lives next to the build cache and is emptied
# with it, so that warm runs analyse.
export PGLOCKORDER_CACHE="$work/pc"
vet=(go vet ./...)
pgl=("$work/pglockorder" ./...)

printf "\n%-7s %5s %7s %8s | %-6s %8s %8s %8s %8s %8s %8s | %6s %6s %6s\n" size pkgs funcs lines run "vet s" "vet CPU" "vet MiB" "pgl s" "pgl CPU" "pgl MiB" "time" "cpu" "mem"
echo "(medians; time, cpu and mem are medians of the per-run ratios pglockorder / go vet)"
for size in $SIZES; do
	IFS=: read -r name npkg nfunc <<<"$size"
	dir="$work/$name"
	: >"$work/times"
	# Fill the warm cache template from the same layout with another seed.
	rm -rf "$dir" "$work/cache-$name"
	"$work/gen" -o "$dir" -packages "$npkg" -funcs "$nfunc" -planted "$PLANTED" -seed 1001 -gosum "$root/testdata/corpus/go.sum" >/dev/null
	export GOCACHE="$work/cache-$name"
	(cd "$dir" && go vet ./... && { "$work/pglockorder" ./... >/dev/null || [ $? -eq 3 ]; })
	rm -rf "$dir"
	stats=$("$work/gen" -o "$dir" -packages "$npkg" -funcs "$nfunc" -planted "$PLANTED" -seed 1 -gosum "$root/testdata/corpus/go.sum")
	funcs=$(sed 's/.*functions=\([0-9]*\).*/\1/' <<<"$stats")
	lines=$(sed 's/.*lines=\([0-9]*\).*/\1/' <<<"$stats")

	for _ in $(seq "$COLD_REPS"); do
		rm -rf "$work/gc" && export GOCACHE="$work/gc"
		timed cold-vet "${vet[@]}"
		rm -rf "$work/gc" "$work/pc"
		timed cold-pgl "${pgl[@]}"
		check
	done
	for _ in $(seq "$REPS"); do
		rm -rf "$work/gc" && cp -a "$work/cache-$name" "$work/gc" && export GOCACHE="$work/gc"
		timed warm-vet "${vet[@]}"
		timed cached-vet "${vet[@]}"
		rm -rf "$work/gc" "$work/pc" && cp -a "$work/cache-$name" "$work/gc"
		timed warm-pgl "${pgl[@]}"
		check
		timed cached-pgl "${pgl[@]}"
		# One package edited: both tools start from their cache of the
		# unedited tree (go vet's was filled by the runs above).
		edit=$(find "$dir/dom" -path '*/repo/*.go' | sort | head -n1)
		printf '\nfunc benchEdit%s() int { return %s }\n' "$RANDOM" "$RANDOM" >>"$edit"
		timed edited-vet "${vet[@]}"
		printf '\nfunc benchEdit%s() int { return %s }\n' "$RANDOM" "$RANDOM" >>"$edit"
		timed edited-pgl "${pgl[@]}"
		check
	done
	for run in cold warm cached edited; do
		vs=$(median "$run-vet" 2) vk=$(median "$run-vet" 3) vc=$(median "$run-vet" 4)
		ps=$(median "$run-pgl" 2) pk=$(median "$run-pgl" 3) pc=$(median "$run-pgl" 4)
		printf "%-7s %5d %7d %8d | %-6s %8s %8s %8d %8s %8s %8d | %6s %6s %6s\n" "$name" "$npkg" "$funcs" "$lines" "$run" \
			"$vs" "$vc" "$((vk / 1024))" "$ps" "$pc" "$((pk / 1024))" "$(ratio "$run" 2)" "$(ratio "$run" 4)" "$(ratio "$run" 3)"
	done
	cp "$work/times" "$work/times-$name"
	if [ "${FACTS:-0}" = 1 ]; then
		# The package facts go vet passes between processes in
		# pglockorder's vet mode (warm cache: the last run filled it).
		(cd "$dir" && go vet -vettool="$work/pglockorder" -pglockorder.debug ./... 2>&1 |
			awk -v name="$name" '/: package fact: / { n++; e += $(NF - 3); b += $(NF - 1); if ($(NF - 1) > m) m = $(NF - 1) }
				END { printf "%-7s vet mode: %d package facts, %d edges, %.1f MB in all, largest %.0f kB\n", name, n, e, b / 1e6, m / 1e3 }') || true
	fi
done
rm -rf "$work/gc"
echo "# raw times (label seconds KiB cpu-seconds) in $work/times-*; load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
