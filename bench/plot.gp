# SPDX-License-Identifier: MIT
# bench/plot.gp — zeModuleCreate time by SPIR-V module size, log-log:
# cold JIT, jitcache miss, jitcache warm hit, and the floor (native binary in
# memory).  Median with min-max bars.  Run by bench/run.sh:
#   gnuplot -e "data='build/bench/run/ze.dat'; out='bench/chart.svg'" bench/plot.gp
# ze.dat columns: spirv_kb name, then median min max (ms) of cold, miss, hit, floor.
if (!exists("data")) data = 'build/bench/run/ze.dat'
if (!exists("out")) out = 'bench/chart.svg'
set terminal svg size 820,520 dynamic font "sans,12" background rgb "white"
set output out
set title "jitcache: first zeModuleCreate of a process, simulated Intel Arc (IGC JIT)"
set xlabel "SPIR-V module size (KB)"
set ylabel "zeModuleCreate time (ms, log scale)"
set logscale xy
set format y "%g"
set grid xtics ytics mytics lc rgb "#dddddd"
set key bottom right box opaque
set xrange [5:4000]
set yrange [0.3:*]
set offsets 0, 0, 0, 0
plot data using 1:3:4:5  with yerrorlines lw 2 pt 7 lc rgb "#c0392b" title "cold JIT (no jitcache)", \
     data using 1:6:7:8  with yerrorlines lw 2 pt 6 dt 2 lc rgb "#e67e22" title "jitcache miss (empty cache)", \
     data using 1:9:10:11 with yerrorlines lw 2 pt 5 lc rgb "#2471a3" title "jitcache warm hit", \
     data using 1:12:13:14 with yerrorlines lw 2 pt 4 dt 3 lc rgb "#27ae60" title "floor: native binary in memory", \
     data using 1:3:2 with labels offset 0,1.2 notitle
