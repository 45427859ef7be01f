# benchratio.awk: reads `go test -bench` output and prints, for every
# sub-benchmark that reports ns/event, its ratio to the floor measured in
# the same run: the impl=floor line of the same benchmark whose other name
# parts (keys=…, s=…) are all among its own. Lines with several counts
# (-count N) are taken at their median.
#
#   go test -run '^$' -bench . ./... | awk -f tools/benchratio.awk

/^Benchmark/ {
	ns = ""
	for (i = 3; i < NF; i++) if ($(i+1) == "ns/event") ns = $i
	if (ns == "") next
	name = $1
	sub(/-[0-9]+$/, "", name)
	if (!(name in n)) order[++names] = name
	v[name, ++n[name]] = ns + 0
}

function median(name,    k, i, j, t, a) {
	k = n[name]
	for (i = 1; i <= k; i++) a[i] = v[name, i]
	for (i = 2; i <= k; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return k % 2 ? a[(k+1)/2] : (a[k/2] + a[k/2+1]) / 2
}

# parts splits a name into its benchmark and its other parts, impl= aside.
function parts(name, rest,    p, k, i) {
	k = split(name, p, "/")
	rest[0] = p[1]
	rest["impl"] = ""
	for (i = 2; i <= k; i++) {
		if (p[i] ~ /^impl=/) rest["impl"] = substr(p[i], 6)
		else rest[p[i]] = 1
	}
}

# within reports whether every part of floor (impl aside) is among line's.
function within(floor, line,    f, l, key) {
	parts(floor, f); parts(line, l)
	if (f[0] != l[0]) return 0
	for (key in f) if (key != 0 && key != "impl" && !(key in l)) return 0
	return 1
}

END {
	printf "%-72s %12s %10s\n", "benchmark", "ns/event", "× floor"
	for (i = 1; i <= names; i++) {
		name = order[i]
		parts(name, me)
		ratio = ""
		if (me["impl"] != "" && me["impl"] != "floor") {
			best = ""; bestParts = -1
			for (j = 1; j <= names; j++) {
				cand = order[j]
				parts(cand, c)
				if (c["impl"] != "floor" || !within(cand, name)) continue
				m = 0; for (key in c) m++
				if (m > bestParts) { best = cand; bestParts = m }
			}
			if (best != "") ratio = sprintf("%.2f", median(name) / median(best))
		}
		printf "%-72s %12.2f %10s\n", name, median(name), ratio
	}
}
