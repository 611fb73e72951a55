// bench/dryrun: dub, 90 bpm, in F
setcpm(90/4)

// drums: euclidean layers
$: s("bd(3,8), sd(2,8,2), hh(7,16)").bank("LinnDrum")
  .every(4, x => x.fast(2)).gain(.8)
$: s("rim(5,16,3)").bank("LinnDrum").gain(.4).room(.3)

// bass: a soundfont bass, syncopated
$: note("f2 ~ [~ f2] ~ f2 [~ f3] ~ f2").s("gm_acoustic_bass").gain(.8).lpf(2000)

// chords: voiced, off-beat stabs with delay
$: chord("<Dm7 Bb^7 Gm7 A7>").voicing().s("gm_string_ensemble_1")
  .struct("~ x ~ x").decay(.3).sustain(.2).delay(.25).room(.4).gain(.35)

// lead: random notes from the scale, thinned out
$: n(irand(8).segment(16)).scale("F4:pentatonic").s("gm_piano")
  .degradeBy(.4).decay(.1).sustain(0).delay(.4).pan(rand).gain(.3)
