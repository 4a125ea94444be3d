# bench-ratios.awk: the ratios of a `go test -bench` log, one line each, as
# `make bench` prints them: the median and the range (from the -min and -max
# metrics a benchmark reports, or over the lines of a -count run), with the
# load average of the run (the benchmark's load-start/load-end metrics, else
# LOAD given with -v). A ratio is a metric whose unit is x-baseline, a share
# in % (unit ending -%), or A/B of two names (script/plain, bench/minimal),
# not a rate or a cost (ns/op, cpu-ns/call, flows/s, B/op).
function isratio(u) {
  if (u == "x-baseline" || u ~ /-%$/) return 1
  if (u !~ /^[a-z][a-z0-9-]*\/[a-z0-9][a-z0-9-]*$/) return 0
  if (u ~ /\/(s|op|call|flow|req|pending|run)$/) return 0
  if (u ~ /(^|-)(cpu|ns|µs|ms|heap|goroutines|calls|flows|allocs|B|bytes)(-[a-z]+)*\//) return 0
  return 1
}
function add(k, v) { n[k]++; val[k, n[k]] = v }
/^Benchmark[^ \t]*[ \t]+[0-9]+[ \t]/ {
  name = $1; sub(/-[0-9]+$/, "", name)
  if (!(name in seen)) { seen[name] = 1; names[++nn] = name }
  for (i = 3; i < NF; i += 2) {
    v = $i; u = $(i + 1)
    if (u == "load-start") { if (!((name, "ls") in load) || v < load[name, "ls"]) load[name, "ls"] = v; if (v > loadmax[name]) loadmax[name] = v; continue }
    if (u == "load-end") { if (v > loadmax[name]) loadmax[name] = v; if (!((name, "lmin") in load) || v < load[name, "lmin"]) load[name, "lmin"] = v; continue }
    if (u ~ /-min$/) { b = u; sub(/-min$/, "", b); if (isratio(b)) { if (!((name, b) in lo) || v < lo[name, b]) lo[name, b] = v }; continue }
    if (u ~ /-max$/) { b = u; sub(/-max$/, "", b); if (isratio(b)) { if (!((name, b) in hi) || v > hi[name, b]) hi[name, b] = v }; continue }
    if (!isratio(u)) continue
    k = name SUBSEP u
    if (!(k in units)) { units[k] = 1; order[name] = order[name] "\t" u }
    add(k, v)
  }
}
END {
  for (j = 1; j <= nn; j++) {
    name = names[j]
    m = split(substr(order[name], 2), us, "\t")
    if (order[name] == "") continue
    ld = ""
    if ((name, "ls") in load) {
      l1 = load[name, "ls"]; if ((name, "lmin") in load && load[name, "lmin"] < l1) l1 = load[name, "lmin"]
      ld = sprintf("load %.1f–%.1f", l1, loadmax[name])
    } else if (LOAD != "") ld = "load " LOAD
    for (x = 1; x <= m; x++) {
      u = us[x]; k = name SUBSEP u; c = n[k]
      for (a = 1; a <= c; a++) s[a] = val[k, a]
      for (a = 1; a <= c; a++) for (b2 = a + 1; b2 <= c; b2++) if (s[b2] < s[a]) { t = s[a]; s[a] = s[b2]; s[b2] = t }
      med = s[int((c + 1) / 2)]; mn = s[1]; mx = s[c]
      if ((k in lo) && lo[k] < mn) mn = lo[k]
      if ((k in hi) && hi[k] > mx) mx = hi[k]
      unit = (u ~ /-%$/) ? " %" : "×"
      runs = (c > 1) ? sprintf(", %d runs", c) : ""
      fmt = (u ~ /-%$/) ? "%.1f" : "%.2f"
      printf "  %-58s %-28s " fmt "%s (" fmt "–" fmt "%s)  %s\n", name, u, med, unit, mn, mx, runs, ld
    }
  }
}
