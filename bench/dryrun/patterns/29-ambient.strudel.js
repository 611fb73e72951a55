// bench/dryrun: ambient, 72 bpm, in Eb
setcpm(72/4)

// drums made from synthesizers: a sine kick and noise hats
$: note("c1*4").s("sine").penv(24).pdecay(.08).decay(.3).sustain(0).gain(1.1)
$: s("[~ white]*4").decay(.05).sustain(0).hpf(7000).gain(.35)
$: s("~ pink").decay(.15).sustain(0).hpf(1500).gain(.4)

// bass: acid line with accents and slides of the filter
$: note("eb2 [eb2 eb3] ~ eb2 [~ eb3] eb2 ~ [eb3 eb2]").s("sawtooth")
  .lpf(perlin.range(400, 3000).fast(2)).lpq(12).lpenv(3).decay(.1).sustain(0)
  .gain("[.6 .4]*4").distort(.2)

// lead: an arpeggio with an octave echo on the off-beats
$: n("0 2 4 <6 7> 4 2 <1 3> 0").scale("EB4:minor").s("gm_epiano1")
  .off(1/8, x => x.add(n(7)).gain(.2)).lpf(2500).decay(.15).sustain(.3)
  .delay(.3).delaytime(.375).delayfeedback(.35).gain(.3)

// texture: zzfx blips
$: s("zzfx*2").note("<c6 g6>").decay(.05).sustain(0).gain(.1).pan(rand)
