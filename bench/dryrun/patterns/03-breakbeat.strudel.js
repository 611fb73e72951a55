// bench/dryrun: breakbeat, 106 bpm, in E
setcpm(106/4)

// drums: a broken beat with ghost notes
$: s("bd ~ ~ bd ~ ~ bd ~, ~ ~ sd ~ ~ sd ~ [~ sd]").bank("RolandTR808")
  .sometimesBy(.2, x => x.speed(1.5)).gain(.85)
$: s("hh*8").bank("RolandTR808").degradeBy(.3).gain(perlin.range(.2, .5))

// bass: eighth notes through a swept low-pass
$: note("<e2 e2 [e2 e3] e1>*4").s("triangle")
  .lpf(sine.range(300, 1600).slow(8)).lpq(6).decay(.15).sustain(.3).gain(.5)

// pad: long chords with a slow attack
$: chord("<Cm7 Ab^7 Fm7 G7>").voicing().s("gm_pad_warm")
  .attack(.5).release(1.2).sustain(1).lpf(1200).room(.6).gain(.2)

// lead: random notes from the scale, thinned out
$: n(irand(8).segment(16)).scale("E4:pentatonic").s("sine")
  .degradeBy(.4).decay(.1).sustain(0).delay(.4).pan(rand).gain(.3)
