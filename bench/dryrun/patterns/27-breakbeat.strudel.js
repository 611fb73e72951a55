// bench/dryrun: breakbeat, 110 bpm, in Eb
setcpm(110/4)

// drums: a broken beat with ghost notes
$: s("bd ~ ~ bd ~ ~ bd ~, ~ ~ sd ~ ~ sd ~ [~ sd]").bank("LinnDrum")
  .sometimesBy(.2, x => x.speed(1.5)).gain(.85)
$: s("hh*8").bank("LinnDrum").degradeBy(.3).gain(perlin.range(.2, .5))

// bass: a walking line in the scale
$: n("<0 2 4 5 4 2 1 -1>*2").scale("EB1:minor").s("triangle")
  .lpf(900).decay(.2).sustain(.4).gain(.5)

// chords: voiced, off-beat stabs with delay
$: chord("<Dm7 Bb^7 Gm7 A7>").voicing().s("gm_vibraphone")
  .struct("~ x ~ x").decay(.3).sustain(.2).delay(.25).room(.4).gain(.35)

// pad: long chords with a slow attack
$: chord("<Dm7 Bb^7 Gm7 A7>").voicing().s("gm_string_ensemble_1")
  .attack(.5).release(1.2).sustain(1).lpf(1200).room(.6).gain(.2)

// lead: random notes from the scale, thinned out
$: n(irand(8).segment(16)).scale("EB4:pentatonic").s("gm_epiano1")
  .degradeBy(.4).decay(.1).sustain(0).delay(.4).pan(rand).gain(.3)

// muted idea, kept for later
_$: s("cp*8").gain(.3)
