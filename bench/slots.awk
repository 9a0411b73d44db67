# bench/slots.awk: the mean number of nvcc slots busy in an AUTOTUNE_TRACE=1 log (stderr of a
# run), from the first nvcc start to the last nvcc end, and the compiles stopped for a committed
# binary. Usage: awk -f bench/slots.awk run.err
/ nvcc start / { t = $3 + 0; sub(":", "", t); step(t); run++ }
/ nvcc done / { t = $3 + 0; step(t); run-- }
/ nvcc stop / { t = $3 + 0; step(t); run--; stopped++ }
function step(t) { if (!started) { started = 1; t0 = t } else area += run * (t - last); last = t }
END { if (last > t0) printf "slots busy %.2f over %.1f s, %d compiles stopped\n", area / (last - t0), last - t0, stopped + 0 }
