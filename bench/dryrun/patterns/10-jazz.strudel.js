// bench/dryrun: jazz, 92 bpm, in F
setcpm(92/4)

// drums: a broken beat with ghost notes
$: s("bd ~ ~ bd ~ ~ bd ~, ~ ~ sd ~ ~ sd ~ [~ sd]").bank("RolandTR808")
  .sometimesBy(.2, x => x.speed(1.5)).gain(.85)
$: s("hh*8").bank("RolandTR808").degradeBy(.3).gain(perlin.range(.2, .5))

// bass: a soundfont bass, syncopated
$: note("f2 ~ [~ f2] ~ f2 [~ f3] ~ f2").s("gm_acoustic_bass").gain(.8).lpf(2000)

// chords: voiced, off-beat stabs with delay
$: chord("<Dm9 G13 C^9 A7b9>").voicing().s("gm_epiano1")
  .struct("~ x ~ x").decay(.3).sustain(.2).delay(.25).room(.4).gain(.35)

// lead: a soundfont melody with a call and response
$: note("<[f4 f5] [f5 f4]>(3,8)").add(note("<0 5 7 3>")).s("gm_vibraphone")
  .every(2, x => x.rev()).room(.4).gain(.5)

// texture: a high ping every other cycle
$: note("f6").s("sine").mask("<1 0>").decay(.4).sustain(0).delay(.6).room(.8).gain(.1)
