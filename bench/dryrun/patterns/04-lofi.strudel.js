// bench/dryrun: lofi, 76 bpm, in G
setcpm(76/4)

// drums: a broken beat with ghost notes
$: s("bd ~ ~ bd ~ ~ bd ~, ~ ~ sd ~ ~ sd ~ [~ sd]").bank("RolandTR808")
  .sometimesBy(.2, x => x.speed(1.5)).gain(.85)
$: s("hh*8").bank("RolandTR808").degradeBy(.3).gain(perlin.range(.2, .5))

// bass: a sub sine under everything
$: note("<g1 g1 [g1 ~] g2>").s("sine").sustain(1).release(.2).gain(.7)

// lead: an arpeggio with an octave echo on the off-beats
$: n("0 2 4 <6 7> 4 2 <1 3> 0").scale("G4:minor").s("gm_piano")
  .off(1/8, x => x.add(n(7)).gain(.2)).lpf(2500).decay(.15).sustain(.3)
  .delay(.3).delaytime(.375).delayfeedback(.35).gain(.3)

// texture: filtered noise sweeps
$: s("white").lpf(sine.range(200, 4000).slow(16)).attack(1).release(2).sustain(1).gain(.05)
