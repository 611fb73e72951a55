// bench/dryrun: drum and bass, 172 bpm, in D
setcpm(172/4)

// drums: two-step breakbeat at double time
$: s("bd ~ ~ ~ ~ ~ bd ~ ~ ~ bd ~ ~ ~ ~ ~, ~ ~ ~ ~ sd ~ ~ ~ ~ ~ ~ ~ sd ~ ~ ~").bank("RolandTR707")
$: s("hh*8").bank("RolandTR707").gain("[.4 .2 .3 .2]*2").swingBy(1/6, 4)

// bass: acid line with accents and slides of the filter
$: note("d2 [d2 d3] ~ d2 [~ d3] d2 ~ [d3 d2]").s("sawtooth")
  .lpf(perlin.range(400, 3000).fast(2)).lpq(12).lpenv(3).decay(.1).sustain(0)
  .gain("[.6 .4]*4").distort(.2)

// chords: voiced, off-beat stabs with delay
$: chord("<Am7 F^7 Dm7 E7>").voicing().s("gm_pad_warm")
  .struct("~ x ~ x").decay(.3).sustain(.2).delay(.25).room(.4).gain(.35)

// lead: an arpeggio with an octave echo on the off-beats
$: n("0 2 4 <6 7> 4 2 <1 3> 0").scale("D4:minor").s("gm_acoustic_bass")
  .off(1/8, x => x.add(n(7)).gain(.2)).lpf(2500).decay(.15).sustain(.3)
  .delay(.3).delaytime(.375).delayfeedback(.35).gain(.3)

// texture: zzfx blips
$: s("zzfx*2").note("<c6 g6>").decay(.05).sustain(0).gain(.1).pan(rand)
