# The roofline of hexcontract bench: gnuplot roofline.gp (in this directory) writes roofline.png.
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) { set terminal pngcairo size 1200,800 } else { set terminal png size 1200,800 }
set output 'roofline.png.tmp'
set title "hexcontract bench, cuda backend: NVIDIA H200 (device 0, PCI 0000:00:06.0, UUID GPU-98734cef-474c-9d85-9407-61f211c78365) (2026-11-22T02:24:55Z)" noenhanced
set logscale xy
set xlabel 'arithmetic intensity (flop/byte, cost model of kernels/README.md)'
set ylabel 'GFLOP/s (best variant per case)'
set grid
set key left top
bw = 4165.56
roof(x, p) = (x * bw < p) ? x * bw : p
set xrange [0.05:100]
set samples 400
plot roof(x, 33454.1) title sprintf('FP64 roof: copy 4166 GB/s, peak 33454 GFLOP/s') lw 2 lc rgb '#1f77b4', \
  roof(x, 66908.2) title 'FP64 tensor-core roof (66908 GFLOP/s)' lw 2 dt 2 lc rgb '#1f77b4', \
  roof(x, 66908.2) title 'FP32 roof (66908 GFLOP/s)' lw 2 lc rgb '#d62728', \
  'roofline.dat' index 0 using 1:2 with points pt 7 ps 1.5 lc rgb '#1f77b4' title 'DataData double', \
  'roofline.dat' index 1 using 1:2 with points pt 5 ps 1.5 lc rgb '#1f77b4' title 'DataField double', \
  'roofline.dat' index 2 using 1:2 with points pt 9 ps 1.5 lc rgb '#1f77b4' title 'FieldField double', \
  'roofline.dat' index 3 using 1:2 with points pt 7 ps 1.5 lc rgb '#d62728' title 'DataData float', \
  'roofline.dat' index 4 using 1:2 with points pt 5 ps 1.5 lc rgb '#d62728' title 'DataField float', \
  'roofline.dat' index 5 using 1:2 with points pt 9 ps 1.5 lc rgb '#d62728' title 'FieldField float'
set output
