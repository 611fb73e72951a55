// bench/dryrun: drum and bass, 174 bpm, in A
setcpm(174/4)

// drums: two-step breakbeat at double time
$: s("bd ~ ~ ~ ~ ~ bd ~ ~ ~ bd ~ ~ ~ ~ ~, ~ ~ ~ ~ sd ~ ~ ~ ~ ~ ~ ~ sd ~ ~ ~").bank("RolandTR909")
$: s("hh*8").bank("RolandTR909").gain("[.4 .2 .3 .2]*2").swingBy(1/6, 4)

// bass: a walking line in the scale
$: n("<0 2 4 5 4 2 1 -1>*2").scale("A1:minor").s("sine")
  .lpf(900).decay(.2).sustain(.4).gain(.5)

// chords: voiced, off-beat stabs with delay
$: chord("<Am7 F^7 Dm7 E7>").voicing().s("gm_piano")
  .struct("~ x ~ x").decay(.3).sustain(.2).delay(.25).room(.4).gain(.35)

// lead: a soundfont melody with a call and response
$: note("<[a4 a5] [a5 a4]>(3,8)").add(note("<0 5 7 3>")).s("gm_vibraphone")
  .every(2, x => x.rev()).room(.4).gain(.5)

// texture: zzfx blips
$: s("zzfx*2").note("<c6 g6>").decay(.05).sustain(0).gain(.1).pan(rand)
